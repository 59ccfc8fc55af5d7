// The few parts of the wire contract (protocol/src) the k6 scripts need, mirrored by hand because
// k6 cannot import the TypeScript package. loadtest/test/k6-protocol.spec.ts checks every value
// here against @taco/protocol, so a change there that is not made here fails the test suite.
// Plain ES module, no k6 imports: the Jest mirror test imports it too.

/** Frame type numbers (protocol/src/frame-types.ts). */
export const FrameType = Object.freeze({
  Message: 1,
  Typing: 2,
  Presence: 3,
  Clear: 4,
  History: 5,
  Heartbeat: 6,
  Error: 7,
  Rename: 8,
  Room: 9,
});

/** Error codes of frame type 7 (protocol/src/frame-types.ts). */
export const ErrorCode = Object.freeze({
  BadFrame: 'bad_frame',
  UnknownType: 'unknown_type',
  EmptyMessage: 'empty_message',
  TooLong: 'too_long',
  RateLimited: 'rate_limited',
  Unavailable: 'unavailable',
  Unauthorized: 'unauthorized',
  NameTaken: 'name_taken',
  EncryptedRoom: 'encrypted_room',
  PlainRoom: 'plain_room',
  NotCreator: 'not_creator',
  NotPresent: 'not_present',
});

/** The close codes decideReconnect names (protocol/src/close-codes.ts). */
export const CloseCode = Object.freeze({
  Normal: 1000,
  Policy: 1008,
  Restart: 1012,
  Unauthorized: 4401,
  NameTaken: 4409,
  Removed: 4403,
});

/** Limits (protocol/src/limits.ts). */
export const NAME_MIN_LENGTH = 3;
export const ROOM_NAME_MAX_LENGTH = 40;
export const USER_NAME_MAX_LENGTH = 32;
export const MESSAGE_MAX_LENGTH = 4000;
export const CLIENT_ID_MAX_LENGTH = 64;
export const HISTORY_REQUEST_COUNT = 100;
export const HISTORY_COUNT_MAX = 500;
export const PING_INTERVAL_MS = 25000;
export const RECONNECT_ATTEMPTS = 10;
export const RECONNECT_INTERVAL_MS = 5000;
export const RECONNECT_JITTER = 0.2;
export const RECONNECT_NOW_MAX_DELAY_MS = 1000;

/** The api's default per-connection limits (RATE_LIMITS in protocol/src/limits.ts). */
export const RATE_LIMITS = Object.freeze({
  messageBurst: 10,
  messagesPerSecond: 2,
  typingPerSecond: 2,
  historyRequests: 5,
  historyWindowMs: 10000,
});

/** HTTP and socket paths (protocol/src/http.ts, ApiPath). */
export const ApiPath = Object.freeze({
  createRoom: '/api/room',
  roomCredentials: (room) => `/api/room/${encodeURIComponent(room)}`,
  roomSocket: (room, token) =>
    `/api/room/${encodeURIComponent(room)}/ws?token=${encodeURIComponent(token)}`,
  roomTicket: (room) => `/api/room/${encodeURIComponent(room)}/ticket`,
  roomSocketWithTicket: (room, ticket) =>
    `/api/room/${encodeURIComponent(room)}/ws?ticket=${encodeURIComponent(ticket)}`,
});

/**
 * What the web client does after a socket closed with `code` (protocol/src/reconnect.ts,
 * decideReconnect with the default policy), when `attemptsSoFar` reconnects have been tried since
 * the last successful open. `random` returns a number in [0, 1).
 */
export function decideReconnect(code, attemptsSoFar, random) {
  if (code === CloseCode.Unauthorized || code === CloseCode.NameTaken) {
    return { action: 'reauthenticate' };
  }
  if (code === CloseCode.Removed) return { action: 'stop', reason: 'removed' };
  if (code === CloseCode.Normal || code === CloseCode.Policy) {
    return { action: 'stop', reason: code === CloseCode.Normal ? 'closed' : 'policy' };
  }
  if (attemptsSoFar >= RECONNECT_ATTEMPTS) return { action: 'stop', reason: 'exhausted' };
  const delayMs =
    code === CloseCode.Restart
      ? random() * RECONNECT_NOW_MAX_DELAY_MS
      : RECONNECT_INTERVAL_MS * (1 + (random() * 2 - 1) * RECONNECT_JITTER);
  return { action: 'reconnect', attempt: attemptsSoFar + 1, delayMs: Math.round(delayMs) };
}
