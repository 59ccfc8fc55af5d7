import {
  ApiPath as ProtocolApiPath,
  CloseCode as ProtocolCloseCode,
  FrameType as ProtocolFrameType,
  HISTORY_REQUEST_COUNT as PROTOCOL_HISTORY_REQUEST_COUNT,
  MESSAGE_MAX_LENGTH as PROTOCOL_MESSAGE_MAX_LENGTH,
  PING_INTERVAL_MS as PROTOCOL_PING_INTERVAL_MS,
} from '@taco/protocol';
import {
  ApiPath,
  CloseCode,
  FrameType,
  HISTORY_REQUEST_COUNT,
  MESSAGE_MAX_LENGTH,
  PING_INTERVAL_MS,
} from '../k6/protocol.js';

describe('the k6 mirror of the wire contract (loadtest/k6/protocol.js)', () => {
  it('has every frame type of @taco/protocol, with the same numbers', () => {
    expect(FrameType).toEqual(ProtocolFrameType);
  });

  it('has the close codes it names with the numbers of @taco/protocol', () => {
    for (const [name, code] of Object.entries(CloseCode)) {
      expect(ProtocolCloseCode[name as keyof typeof ProtocolCloseCode]).toBe(code);
    }
  });

  it('has the limits it uses with the values of @taco/protocol', () => {
    expect(MESSAGE_MAX_LENGTH).toBe(PROTOCOL_MESSAGE_MAX_LENGTH);
    expect(HISTORY_REQUEST_COUNT).toBe(PROTOCOL_HISTORY_REQUEST_COUNT);
    expect(PING_INTERVAL_MS).toBe(PROTOCOL_PING_INTERVAL_MS);
  });

  it.each(['lunch-room', 'room with spaces', 'ünïcödé-🌮', 'a/b?c'])(
    'builds the same paths as ApiPath for %p',
    (room) => {
      const token = 'a.b+c/=d';
      expect(ApiPath.createRoom).toBe(ProtocolApiPath.createRoom);
      expect(ApiPath.roomCredentials(room)).toBe(ProtocolApiPath.roomCredentials(room));
      expect(ApiPath.roomSocket(room, token)).toBe(ProtocolApiPath.roomSocket(room, token));
    },
  );
});
