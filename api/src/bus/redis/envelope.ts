import { type RoomEvent } from '../chat-bus.port';

/**
 * A room event on the wire between replicas: the `except` name (empty for none), a newline, then
 * the frame exactly as clients get it. Names cannot contain control characters, so the first
 * newline always ends the name. The Lua scripts write the same shape.
 */
export function encodeEnvelope(event: RoomEvent): string {
  return `${event.except ?? ''}\n${event.frame}`;
}

export function decodeEnvelope(payload: string): RoomEvent | null {
  const split = payload.indexOf('\n');
  if (split === -1) return null;
  const frame = payload.slice(split + 1);
  return split === 0 ? { frame } : { frame, except: payload.slice(0, split) };
}
