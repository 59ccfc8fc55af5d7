const FIN_TEXT = 0x81;
const LENGTH_16 = 126;
const LENGTH_64 = 127;

/**
 * A ping (RFC 6455 §5.5.2: FIN set, opcode 9, no payload), unmasked as a server's frames are: the
 * same two bytes for every socket, so a round of pings builds nothing per socket.
 */
export const PING_FRAME = Buffer.from([0x89, 0x00]);

/**
 * A complete, unmasked WebSocket text frame (RFC 6455 §5.2: FIN set, opcode 1, no extensions) for
 * a text, header and payload in one buffer. A room's event is framed once per replica and the
 * same bytes are written to every member's socket; nothing is built per recipient.
 */
export function textFrame(text: string | Buffer): Buffer {
  const payload = typeof text === 'string' ? Buffer.from(text) : text;
  const length = payload.length;
  const headerLength = length < LENGTH_16 ? 2 : length < 0x10000 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerLength + length);
  frame[0] = FIN_TEXT;
  if (headerLength === 2) {
    frame[1] = length;
  } else if (headerLength === 4) {
    frame[1] = LENGTH_16;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = LENGTH_64;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  payload.copy(frame, headerLength);
  return frame;
}
