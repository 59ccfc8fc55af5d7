import { type RoomControlEvent, type RoomEvent } from '../chat-bus.port';

/** The first byte of a control event's envelope, whose first line is then its JSON. */
const CONTROL_MARK = 0x02;

/** Between the `except` name and the `exceptConnection` id in an envelope's first line. */
const CONNECTION_MARK = '\t';

/**
 * A room event on the wire between replicas: a first line of the `except` name (empty for none),
 * then, when a connection skips it, a tab and that connection's id; a newline; then the payload
 * exactly as clients get it. Names cannot contain control characters, nor can connection ids, so
 * the first tab and the first newline always end them. The Lua scripts write the same shape (the
 * first line is `envelopeHeader`).
 */
export function encodeEnvelope(event: RoomEvent): string {
  if (event.control) {
    return `\x02${JSON.stringify(event.control)}\n${event.payload.toString()}`;
  }
  return `${envelopeHeader(event)}\n${event.payload.toString()}`;
}

/** The first line of an event's envelope (without its newline). */
export function envelopeHeader(event: Pick<RoomEvent, 'except' | 'exceptConnection'>): string {
  const except = event.except ?? '';
  return event.exceptConnection === undefined
    ? except
    : `${except}${CONNECTION_MARK}${event.exceptConnection}`;
}

const NEWLINE = 0x0a;
const TAB = 0x09;

/** Reads an envelope without copying or decoding the payload: its bytes go to sockets as they are. */
export function decodeEnvelope(envelope: Buffer): RoomEvent | null {
  const split = envelope.indexOf(NEWLINE);
  if (split === -1) return null;
  const payload = envelope.subarray(split + 1);
  if (split === 0) return { payload };
  if (envelope[0] === CONTROL_MARK) {
    const control = JSON.parse(envelope.toString('utf8', 1, split)) as RoomControlEvent;
    return { payload, control };
  }
  const event: RoomEvent = { payload };
  const mark = envelope.subarray(0, split).indexOf(TAB);
  const nameEnd = mark === -1 ? split : mark;
  if (nameEnd > 0) event.except = envelope.toString('utf8', 0, nameEnd);
  if (mark !== -1) event.exceptConnection = envelope.toString('utf8', mark + 1, split);
  return event;
}
