/** Every limit and constant of the contract (protocol/README.md §7), written once. */

/** Minimum length of a room name and of a user name, in code points. */
export const NAME_MIN_LENGTH = 3;
/** Maximum length of a room id, in code points. */
export const ROOM_NAME_MAX_LENGTH = 40;
/** Maximum length of a user name after trimming, in code points. */
export const USER_NAME_MAX_LENGTH = 32;

/** Maximum message body, in code points after trimming. */
export const MESSAGE_MAX_LENGTH = 4000;
/** Maximum `client_id` length, in code points. */
export const CLIENT_ID_MAX_LENGTH = 64;
/** Maximum `epoch` length a history request may carry, in code points. */
export const EPOCH_MAX_LENGTH = 64;
/** Maximum length of a rename frame's token, in code points. */
export const TOKEN_MAX_LENGTH = 2048;
/** Largest frame a server accepts, in bytes; larger closes with 1009. */
export const FRAME_MAX_BYTES = 16 * 1024;
/** Bytes waiting to be sent to one connection before it is closed with 1013. */
export const SEND_BUFFER_MAX_BYTES = 1024 * 1024;
/**
 * How long one frame that took a connection's backlog over `SEND_BUFFER_MAX_BYTES` (a large
 * history page) may take to drain back under it before the connection is closed with 1013.
 */
export const SEND_BACKLOG_GRACE_MS = 5000;
/**
 * How long a server waits for the peer to answer a close frame it sent (1013, 4429, 4401, 1008,
 * 1012, ...) before it drops the TCP connection: a peer that stopped reading never answers.
 */
export const CLOSE_HANDSHAKE_TIMEOUT_MS = 5000;
/**
 * How long a draining replica (SIGTERM) waits for the sockets it closed with 1012 to go before its
 * HTTP server and Redis connections close. A peer that never answers its close frame is dropped
 * after `CLOSE_HANDSHAKE_TIMEOUT_MS`, so a drain ends within about both; deployments size their
 * grace period from them (infra/kubernetes).
 */
export const DRAIN_TIMEOUT_MS = 3000;

/** History a client asks for on first open. */
export const HISTORY_REQUEST_COUNT = 100;
/** Largest `count` a history request may carry. */
export const HISTORY_COUNT_MAX = 500;
/** Messages a room keeps by default. */
export const HISTORY_MAX_DEFAULT = 1000;

/** Automatic reconnect attempts after an unexpected close. */
export const RECONNECT_ATTEMPTS = 10;
/** Pause between reconnect attempts. */
export const RECONNECT_INTERVAL_MS = 5000;
/** Relative jitter applied to every reconnect delay (±20 %). */
export const RECONNECT_JITTER = 0.2;
/** Largest delay before an immediate reconnect (after close 1012), so replicas are not stampeded. */
export const RECONNECT_NOW_MAX_DELAY_MS = 1000;

/** Interval of the server's WebSocket pings and of the client's heartbeats. */
export const PING_INTERVAL_MS = 25_000;
/**
 * How long a client waits for any frame after its heartbeat before it takes the connection for
 * dead (a laptop that slept, a network that went away without a word) and reconnects.
 */
export const HEARTBEAT_REPLY_TIMEOUT_MS = 10_000;
/** Pongs a connection may miss before the server drops it. */
export const MISSED_PONGS_LIMIT = 2;

/** A typing=true frame is sent at most once per this interval (leading edge). */
export const TYPING_THROTTLE_MS = 2000;

/**
 * A client that said typing=true and has not edited its draft for this long sends typing=false,
 * and a receiver drops a typing indicator not refreshed for `TYPING_STALE_MS`.
 */
export const TYPING_IDLE_MS = 2500;
/** A typing indicator with no refresh for this long is gone (longer than the throttle). */
export const TYPING_STALE_MS = 3000;

/** A participant whose replica stops refreshing is reported gone within this time. */
export const PRESENCE_TTL_MS = 30_000;

/** Default abuse limits; each can be changed by configuration on the server. */
export const RATE_LIMITS = {
  /** Message bucket: burst size and refill per second (clear frames count as messages). */
  messageBurst: 10,
  messagesPerSecond: 2,
  /** Typing frames per second. */
  typingPerSecond: 2,
  /** History requests per window. */
  historyRequests: 5,
  historyWindowMs: 10_000,
  /** Rate-limited frames tolerated in a burst before the connection is closed with 4429. */
  strikesBeforeClose: 20,
  /** Strikes forgiven per second. */
  strikesForgivenPerSecond: 1,
  /** Credential and room-creation calls per client IP per minute. */
  credentialsPerMinute: 30,
  /** Open WebSocket connections per client IP. */
  connectionsPerIp: 100,
} as const;

/** The largest frame in an end-to-end encrypted room, in bytes: the longest ciphertext fits. */
export const ENCRYPTED_FRAME_MAX_BYTES = 24 * 1024;
/** How long a removed participant's name stays barred in the room (§6.11). */
export const REMOVED_NAME_BAR_MS = 60 * 60 * 1000;
/** `disappear_after` choices besides off and the deployment's shortest: 1 day and 7 days (§6.13). */
export const DISAPPEAR_LONGER_CHOICES = [86_400, 604_800] as const;
/** The default shortest disappearing-messages choice: 1 hour; a deployment may lower it to 60 s. */
export const DISAPPEAR_SHORTEST_DEFAULT = 3600;
