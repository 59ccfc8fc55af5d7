/** WebSocket close codes Taco Chat uses, and what a client should do after each. */
export const CloseCode = {
  /** A deliberate close by either side. */
  Normal: 1000,
  /** The page or process is going away. */
  GoingAway: 1001,
  /** Abnormal closure: the connection dropped without a close frame (never sent on the wire). */
  Abnormal: 1006,
  /** Policy violation: an `Origin` that is not allowed. */
  Policy: 1008,
  /** A frame larger than the frame limit. */
  TooBig: 1009,
  /** The server is restarting or this replica is shutting down. */
  Restart: 1012,
  /** Over the connection cap, or the client reads too slowly. */
  TryAgainLater: 1013,
  /** The token is missing, bad, expired or for another room. */
  Unauthorized: 4401,
  /**
   * The token's name (or one that looks the same) is held in the room by someone else: another
   * credential's connections are present with it. Choose another name; never retry the token.
   */
  NameTaken: 4409,
  /** The room's creator removed this credential's holder from the room (§6.11); never retry. */
  Removed: 4403,
  /** Repeated rate-limit abuse. */
  RateLimited: 4429,
} as const;

export type CloseCode = (typeof CloseCode)[keyof typeof CloseCode];

/** The reason texts sent with a close (each well under the 123-byte limit), written once. */
export const CloseReason = {
  /** 4401: the token or ticket is missing, bad, expired or for another room. */
  Unauthorized: 'Unauthorized',
  /** 4409: the name is held in the room by someone else. */
  NameTaken: 'Name taken',
  /** 4403: the creator removed this holder from the room. */
  Removed: 'Removed from the room',
  /** 1008: a browser `Origin` that is not allowed. */
  OriginNotAllowed: 'Origin not allowed',
  /** 1008: an upgrade on a path that is not a room socket. */
  NotARoomSocket: 'Not a room socket',
  /** 1012: the replica is draining or shutting down. */
  Restarting: 'Server restarting',
  /** 1013: over the per-IP connection cap. */
  TooManyConnections: 'Too many connections',
  /** 1013: more than the send buffer limit waits to be sent to the client. */
  ReadingTooSlowly: 'Reading too slowly',
  /** 1013: joining the room failed because storage is unavailable. */
  StorageUnavailable: 'Storage unavailable',
  /** 4429: repeated rate-limit abuse. */
  RateLimitExceeded: 'Rate limit exceeded',
  /** 1000 from a client: the user left the room. */
  LeavingRoom: 'Leaving the room',
  /** 1000 from a client: nothing came back after its heartbeat; it connects again. */
  NoReply: 'No reply to the heartbeat',
} as const;

export type CloseReason = (typeof CloseReason)[keyof typeof CloseReason];

/**
 * What a client does after a close:
 * - `reauthenticate`: request new credentials, never retry blindly with the same token;
 * - `stop`: do not reconnect;
 * - `reconnect-now`: reconnect at once (with jitter);
 * - `reconnect`: reconnect after the usual back-off.
 */
export type CloseAction = 'reauthenticate' | 'stop' | 'reconnect-now' | 'reconnect' | 'removed';

export function closeAction(code: number): CloseAction {
  switch (code) {
    case CloseCode.Unauthorized:
    case CloseCode.NameTaken:
      return 'reauthenticate';
    case CloseCode.Normal:
    case CloseCode.Policy:
      return 'stop';
    case CloseCode.Removed:
      return 'removed';
    case CloseCode.Restart:
      return 'reconnect-now';
    default:
      return 'reconnect';
  }
}
