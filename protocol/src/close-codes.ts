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
  /** Repeated rate-limit abuse. */
  RateLimited: 4429,
} as const;

export type CloseCode = (typeof CloseCode)[keyof typeof CloseCode];

/**
 * What a client does after a close:
 * - `reauthenticate`: request new credentials, never retry blindly with the same token;
 * - `stop`: do not reconnect;
 * - `reconnect-now`: reconnect at once (with jitter);
 * - `reconnect`: reconnect after the usual back-off.
 */
export type CloseAction = 'reauthenticate' | 'stop' | 'reconnect-now' | 'reconnect';

export function closeAction(code: number): CloseAction {
  switch (code) {
    case CloseCode.Unauthorized:
      return 'reauthenticate';
    case CloseCode.Normal:
    case CloseCode.Policy:
      return 'stop';
    case CloseCode.Restart:
      return 'reconnect-now';
    default:
      return 'reconnect';
  }
}
