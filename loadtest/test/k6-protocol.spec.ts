import {
  ApiPath as ProtocolApiPath,
  CLIENT_ID_MAX_LENGTH as PROTOCOL_CLIENT_ID_MAX_LENGTH,
  CloseCode as ProtocolCloseCode,
  decideReconnect as protocolDecideReconnect,
  ErrorCode as ProtocolErrorCode,
  FrameType as ProtocolFrameType,
  HISTORY_COUNT_MAX as PROTOCOL_HISTORY_COUNT_MAX,
  HISTORY_REQUEST_COUNT as PROTOCOL_HISTORY_REQUEST_COUNT,
  MESSAGE_MAX_LENGTH as PROTOCOL_MESSAGE_MAX_LENGTH,
  NAME_MIN_LENGTH as PROTOCOL_NAME_MIN_LENGTH,
  PING_INTERVAL_MS as PROTOCOL_PING_INTERVAL_MS,
  RATE_LIMITS as PROTOCOL_RATE_LIMITS,
  RECONNECT_ATTEMPTS as PROTOCOL_RECONNECT_ATTEMPTS,
  RECONNECT_INTERVAL_MS as PROTOCOL_RECONNECT_INTERVAL_MS,
  RECONNECT_JITTER as PROTOCOL_RECONNECT_JITTER,
  RECONNECT_NOW_MAX_DELAY_MS as PROTOCOL_RECONNECT_NOW_MAX_DELAY_MS,
  ROOM_NAME_MAX_LENGTH as PROTOCOL_ROOM_NAME_MAX_LENGTH,
  USER_NAME_MAX_LENGTH as PROTOCOL_USER_NAME_MAX_LENGTH,
} from '@taco/protocol';
import {
  ApiPath,
  CLIENT_ID_MAX_LENGTH,
  CloseCode,
  decideReconnect,
  ErrorCode,
  FrameType,
  HISTORY_COUNT_MAX,
  HISTORY_REQUEST_COUNT,
  MESSAGE_MAX_LENGTH,
  NAME_MIN_LENGTH,
  PING_INTERVAL_MS,
  RATE_LIMITS,
  RECONNECT_ATTEMPTS,
  RECONNECT_INTERVAL_MS,
  RECONNECT_JITTER,
  RECONNECT_NOW_MAX_DELAY_MS,
  ROOM_NAME_MAX_LENGTH,
  USER_NAME_MAX_LENGTH,
} from '../k6/protocol.js';

describe('the k6 mirror of the wire contract (loadtest/k6/protocol.js)', () => {
  it('has every frame type of @taco/protocol, with the same numbers', () => {
    expect(FrameType).toEqual(ProtocolFrameType);
  });

  it('has every error code of @taco/protocol', () => {
    expect(ErrorCode).toEqual(ProtocolErrorCode);
  });

  it('has the close codes it names with the numbers of @taco/protocol', () => {
    for (const [name, code] of Object.entries(CloseCode)) {
      expect(ProtocolCloseCode[name as keyof typeof ProtocolCloseCode]).toBe(code);
    }
  });

  it('has the limits it uses with the values of @taco/protocol', () => {
    expect({
      NAME_MIN_LENGTH,
      ROOM_NAME_MAX_LENGTH,
      USER_NAME_MAX_LENGTH,
      MESSAGE_MAX_LENGTH,
      CLIENT_ID_MAX_LENGTH,
      HISTORY_REQUEST_COUNT,
      HISTORY_COUNT_MAX,
      PING_INTERVAL_MS,
      RECONNECT_ATTEMPTS,
      RECONNECT_INTERVAL_MS,
      RECONNECT_JITTER,
      RECONNECT_NOW_MAX_DELAY_MS,
    }).toEqual({
      NAME_MIN_LENGTH: PROTOCOL_NAME_MIN_LENGTH,
      ROOM_NAME_MAX_LENGTH: PROTOCOL_ROOM_NAME_MAX_LENGTH,
      USER_NAME_MAX_LENGTH: PROTOCOL_USER_NAME_MAX_LENGTH,
      MESSAGE_MAX_LENGTH: PROTOCOL_MESSAGE_MAX_LENGTH,
      CLIENT_ID_MAX_LENGTH: PROTOCOL_CLIENT_ID_MAX_LENGTH,
      HISTORY_REQUEST_COUNT: PROTOCOL_HISTORY_REQUEST_COUNT,
      HISTORY_COUNT_MAX: PROTOCOL_HISTORY_COUNT_MAX,
      PING_INTERVAL_MS: PROTOCOL_PING_INTERVAL_MS,
      RECONNECT_ATTEMPTS: PROTOCOL_RECONNECT_ATTEMPTS,
      RECONNECT_INTERVAL_MS: PROTOCOL_RECONNECT_INTERVAL_MS,
      RECONNECT_JITTER: PROTOCOL_RECONNECT_JITTER,
      RECONNECT_NOW_MAX_DELAY_MS: PROTOCOL_RECONNECT_NOW_MAX_DELAY_MS,
    });
  });

  it('has the per-connection rate limits it stays within with the api defaults', () => {
    for (const [name, value] of Object.entries(RATE_LIMITS)) {
      expect([name, PROTOCOL_RATE_LIMITS[name as keyof typeof PROTOCOL_RATE_LIMITS]]).toEqual([
        name,
        value,
      ]);
    }
  });

  it.each(['lunch-room', 'room with spaces', 'ünïcödé-🌮', 'a/b?c'])(
    'builds the same paths as ApiPath for %p',
    (room) => {
      const token = 'a.b+c/=d';
      expect(ApiPath.createRoom).toBe(ProtocolApiPath.createRoom);
      expect(ApiPath.roomCredentials(room)).toBe(ProtocolApiPath.roomCredentials(room));
      expect(ApiPath.roomSocket(room, token)).toBe(ProtocolApiPath.roomSocket(room, token));
      expect(ApiPath.roomTicket(room)).toBe(ProtocolApiPath.roomTicket(room));
      expect(ApiPath.roomSocketWithTicket(room, token)).toBe(
        ProtocolApiPath.roomSocketWithTicket(room, token),
      );
    },
  );

  it('reconnects after a close exactly as the web client decides', () => {
    const codes = [
      undefined,
      1000,
      1001,
      1006,
      1008,
      1009,
      1011,
      1012,
      1013,
      4401,
      4403,
      4409,
      4429,
      4000,
      // Every code the contract names, so a code added there and not here fails.
      ...Object.values(ProtocolCloseCode),
    ];
    for (const code of codes) {
      for (const attempts of [0, 1, 5, 9, 10, 11]) {
        for (const draw of [0, 0.25, 0.5, 0.999]) {
          const random = () => draw;
          expect([code, attempts, draw, decideReconnect(code, attempts, random)]).toEqual([
            code,
            attempts,
            draw,
            protocolDecideReconnect(code ?? 1006, attempts, random),
          ]);
        }
      }
    }
  });
});
