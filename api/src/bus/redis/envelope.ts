import { type RoomEvent } from '../chat-bus.port';

/**
 * A room event on the wire between replicas: the `except` name (empty for none), a newline, then
 * the payload exactly as clients get it. Names cannot contain control characters, so the first
 * newline always ends the name. The Lua scripts write the same shape.
 */
export function encodeEnvelope(event: RoomEvent): string {
  return `${event.except ?? ''}\n${event.payload.toString()}`;
}

const NEWLINE = 0x0a;

/** Reads an envelope without copying or decoding the payload: its bytes go to sockets as they are. */
export function decodeEnvelope(envelope: Buffer): RoomEvent | null {
  const split = envelope.indexOf(NEWLINE);
  if (split === -1) return null;
  const payload = envelope.subarray(split + 1);
  return split === 0 ? { payload } : { payload, except: envelope.toString('utf8', 0, split) };
}
