import { withStorage } from '../../common/browserStorage';
import type { SeenPoint } from './feedItems';

/**
 * Where the user left off in each room, kept in `localStorage` beside (not inside) the
 * redux-persist root, so that a reload or another tab can show "New messages" there.
 */
const KEY_PREFIX = 'taco:seen:';

/** The newest message the user saw in `room`, or `null` when unknown. */
export function readLastSeen(room: string): SeenPoint | null {
  const raw = withStorage((storage) => storage.getItem(KEY_PREFIX + room), null);
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as Partial<SeenPoint> | null;
    return typeof value?.epoch === 'string' && typeof value.seq === 'number'
      ? { epoch: value.epoch, seq: value.seq }
      : null;
  } catch {
    return null;
  }
}

/** Whether `next` is newer than `current` (another epoch counts as newer: the room started over). */
export function isNewer(next: SeenPoint, current: SeenPoint | null): boolean {
  return current === null || next.epoch !== current.epoch || next.seq > current.seq;
}

/** Records that the user saw up to `point` in `room`, if that is further than before. */
export function writeLastSeen(room: string, point: SeenPoint): void {
  if (!isNewer(point, readLastSeen(room))) return;
  // Storage full or refused: the divider only shows less well.
  withStorage((storage) => storage.setItem(KEY_PREFIX + room, JSON.stringify(point)), undefined);
}
