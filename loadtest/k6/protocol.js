// The few parts of the wire contract (protocol/src) the k6 scripts need, mirrored by hand because
// k6 cannot import the TypeScript package. loadtest/test/k6-protocol.spec.ts checks every value
// here against @taco/protocol, so a change there that is not made here fails the test suite.

/** Frame type numbers (protocol/src/frame-types.ts). */
export const FrameType = Object.freeze({
  Message: 1,
  Typing: 2,
  Presence: 3,
  Clear: 4,
  History: 5,
  Heartbeat: 6,
  Error: 7,
});

/** Close codes (protocol/src/close-codes.ts). */
export const CloseCode = Object.freeze({
  Normal: 1000,
  Restart: 1012,
  TryAgainLater: 1013,
  Unauthorized: 4401,
  RateLimited: 4429,
});

/** Limits (protocol/src/limits.ts). */
export const MESSAGE_MAX_LENGTH = 4000;
export const HISTORY_REQUEST_COUNT = 100;
export const PING_INTERVAL_MS = 25000;

/** HTTP and socket paths (protocol/src/http.ts, ApiPath). */
export const ApiPath = Object.freeze({
  createRoom: '/api/room',
  roomCredentials: (room) => `/api/room/${encodeURIComponent(room)}`,
  roomSocket: (room, token) =>
    `/api/room/${encodeURIComponent(room)}/ws?token=${encodeURIComponent(token)}`,
});
