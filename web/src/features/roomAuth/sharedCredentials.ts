import { isSameUserName } from '@taco/protocol';
import { keyOf } from '../../common/keyed';
import { credentialsShared, renameRequested } from '../chat/chatActions';
import { type RoomAuthState } from './roomAuthSlice';
import { PERSIST_STORAGE_KEY } from './persistence';

interface Store {
  getState(): { roomAuth: RoomAuthState };
  dispatch(action: ReturnType<typeof credentialsShared | typeof renameRequested>): unknown;
  subscribe(listener: () => void): () => void;
}

/** The channel the tabs of one browser ask each other for a room's credentials on. */
export const CREDENTIALS_CHANNEL = 'taco:credentials';

/** A tab without working credentials for a room asks; a tab holding them for that name answers. */
type CredentialsMessage =
  | { kind: 'ask'; room: string; name: string }
  | { kind: 'offer'; room: string; name: string; token: string };

/** What the tabs talk over (`BroadcastChannel`, or a stand-in in tests). */
export type TabChannel = Pick<BroadcastChannel, 'postMessage' | 'addEventListener' | 'close'>;

function openChannel(): TabChannel | null {
  return typeof BroadcastChannel === 'function' ? new BroadcastChannel(CREDENTIALS_CHANNEL) : null;
}

/** The room credentials in a `persist:root` value another tab wrote, or none. */
function storedCredentials(value: string | null): RoomAuthState {
  if (value === null) return {};
  try {
    const root = JSON.parse(value) as { roomAuth?: unknown };
    const roomAuth: unknown = typeof root.roomAuth === 'string' ? JSON.parse(root.roomAuth) : null;
    return roomAuth !== null && typeof roomAuth === 'object' ? (roomAuth as RoomAuthState) : {};
  } catch {
    return {};
  }
}

/**
 * Tabs of one browser share their room credentials. When another tab stores a token for a room
 * under the name this tab holds there, and this tab has none that works (the server restarted
 * and refused every token, say), this tab takes it over (`credentialsShared`), instead of asking
 * for its own and being told that its own name is taken: the other tab is already connected with
 * it. A token this tab has used itself is never taken back.
 *
 * When another tab changes the name this tab holds in a room (a rename, or a new name chosen
 * after the old one was refused), this tab follows with that tab's token (`renameRequested`), so
 * one browser is one participant under one name. Returns the function that stops.
 */
export function shareCredentialsAcrossTabs(
  store: Store,
  page: Pick<Window, 'addEventListener' | 'removeEventListener'>,
  channel: TabChannel | null = openChannel(),
) {
  /** Room → the latest credentials another tab stored for it. */
  const offered = new Map<string, { name: string; token: string }>();
  /** Tokens this tab has held, per room: refused ones among them. */
  const used = new Map<string, Set<string>>();

  let seen: RoomAuthState | null = null;
  /** Per room, the token this tab held last (the one refused, once it has none). */
  const lastToken = new Map<string, string>();
  /** Rooms this tab has asked the other tabs about since it last had credentials there. */
  const asked = new Set<string>();

  const take = () => {
    const { roomAuth } = store.getState();
    // Runs after every action: nothing to do unless the credentials changed or one is offered.
    if (roomAuth === seen && offered.size === 0) return;
    seen = roomAuth;
    for (const record of Object.values(roomAuth)) {
      if (record.token === '') {
        // No working credentials under a known name (refused, or the name held by another
        // credential, close 4409): a tab of this browser that holds them under that name shares.
        if (record.senderName !== '' && !asked.has(record.roomID)) {
          asked.add(record.roomID);
          channel?.postMessage({ kind: 'ask', room: record.roomID, name: record.senderName });
        }
        continue;
      }
      asked.delete(record.roomID);
      lastToken.set(record.roomID, record.token);
      let tokens = used.get(record.roomID);
      if (!tokens) used.set(record.roomID, (tokens = new Set()));
      tokens.add(record.token);
    }
    for (const [room, { name, token }] of offered) {
      const mine = roomAuth[keyOf(room)];
      if (!mine || mine.authenticated || mine.senderName === '') continue;
      offered.delete(room);
      if (used.get(room)?.has(token) || !isSameUserName(mine.senderName, name)) continue;
      store.dispatch(credentialsShared({ room, name, token }));
    }
  };

  const onStorage = (event: StorageEvent) => {
    if (event.key !== PERSIST_STORAGE_KEY) return;
    const before = storedCredentials(event.oldValue);
    const { roomAuth } = store.getState();
    for (const record of Object.values(storedCredentials(event.newValue))) {
      if (
        !record?.authenticated ||
        typeof record.roomID !== 'string' ||
        typeof record.token !== 'string' ||
        record.token === ''
      ) {
        continue;
      }
      const room = record.roomID;
      const mine = roomAuth[keyOf(room)]?.senderName ?? '';
      const was = before[keyOf(room)]?.senderName;
      if (
        mine !== '' &&
        typeof was === 'string' &&
        typeof record.senderName === 'string' &&
        isSameUserName(was, mine) &&
        !isSameUserName(record.senderName, mine)
      ) {
        store.dispatch(renameRequested({ room, name: record.senderName, token: record.token }));
      } else {
        offered.set(room, { name: record.senderName, token: record.token });
      }
    }
    take();
  };

  /**
   * Answers another tab that asks for a room's credentials with this tab's, when it holds them
   * under the same name; takes an answer to its own question. A token offered by a tab that holds
   * it now is taken even if this tab used it before (two tabs that asked for new credentials at
   * once: the second's socket is refused the name the first holds, close 4409), but never the one
   * this tab was just refused.
   */
  const onMessage = (event: MessageEvent<CredentialsMessage>) => {
    const message = event.data;
    const mine = store.getState().roomAuth[keyOf(message.room)];
    if (!mine || !isSameUserName(mine.senderName, message.name)) return;
    if (message.kind === 'ask') {
      if (mine.authenticated && mine.token !== '') {
        channel?.postMessage({ ...message, kind: 'offer', token: mine.token });
      }
    } else if (!mine.authenticated && message.token !== lastToken.get(message.room)) {
      store.dispatch(
        credentialsShared({ room: message.room, name: message.name, token: message.token }),
      );
    }
  };

  page.addEventListener('storage', onStorage as EventListener);
  channel?.addEventListener('message', onMessage as EventListener);
  const unsubscribe = store.subscribe(take);
  return () => {
    page.removeEventListener('storage', onStorage as EventListener);
    channel?.close();
    unsubscribe();
  };
}
