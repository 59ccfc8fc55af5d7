import { WebRoute } from '@taco/protocol';
import { PRODUCT_NAME } from '../../common/brand';

export const SHARE_COPIED_MESSAGE = 'Your link has been copied to your clipboard.';
/** How long the "link copied" toast stays. */
export const TOAST_DELAY_MS = 3000;

/**
 * The room's address: `{host}/r/{room_id}`, with an encrypted room's key in the fragment
 * (`#{key}`, which a browser never sends to a server), so the link opens the room for reading.
 */
export function roomUrl(room: string, key?: string): string {
  return `${window.location.origin}${WebRoute.room(room)}${key ? `#${key}` : ''}`;
}

/**
 * Shares the room with the device share sheet when there is one; otherwise copies the link.
 * Resolves `'copied'` when the link went to the clipboard. A failure is only logged.
 */
export async function shareRoom(
  room: string,
  key?: string,
): Promise<'shared' | 'copied' | 'failed'> {
  const url = roomUrl(room, key);
  const data: ShareData = { title: room, text: `Join me on ${PRODUCT_NAME}!`, url };
  try {
    if (typeof navigator.share === 'function' && (navigator.canShare?.(data) ?? true)) {
      await navigator.share(data);
      return 'shared';
    }
    await navigator.clipboard.writeText(url);
    return 'copied';
  } catch (error) {
    console.error('Taco Chat: sharing failed', error);
    return 'failed';
  }
}
