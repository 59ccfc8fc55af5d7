import { CloseCode, closeAction } from './close-codes';
import {
  RECONNECT_ATTEMPTS,
  RECONNECT_INTERVAL_MS,
  RECONNECT_JITTER,
  RECONNECT_NOW_MAX_DELAY_MS,
} from './limits';

export type ReconnectDecision =
  | { action: 'reconnect'; delayMs: number; attempt: number }
  | { action: 'reauthenticate' }
  | { action: 'stop'; reason: 'closed' | 'policy' | 'exhausted' | 'removed' };

export interface ReconnectPolicy {
  attempts: number;
  intervalMs: number;
  jitter: number;
  immediateMaxDelayMs: number;
}

export const DEFAULT_RECONNECT_POLICY: ReconnectPolicy = {
  attempts: RECONNECT_ATTEMPTS,
  intervalMs: RECONNECT_INTERVAL_MS,
  jitter: RECONNECT_JITTER,
  immediateMaxDelayMs: RECONNECT_NOW_MAX_DELAY_MS,
};

/**
 * What to do after a socket closed with `code`, when `attemptsSoFar` reconnects have already
 * been tried since the last successful open. Pure: `random` returns a number in [0, 1).
 */
export function decideReconnect(
  code: number,
  attemptsSoFar: number,
  random: () => number,
  policy: ReconnectPolicy = DEFAULT_RECONNECT_POLICY,
): ReconnectDecision {
  const action = closeAction(code);
  if (action === 'reauthenticate') return { action };
  if (action === 'removed') return { action: 'stop', reason: 'removed' };
  if (action === 'stop') return { action, reason: code === CloseCode.Normal ? 'closed' : 'policy' };
  if (attemptsSoFar >= policy.attempts) return { action: 'stop', reason: 'exhausted' };
  const attempt = attemptsSoFar + 1;
  if (action === 'reconnect-now') {
    return {
      action: 'reconnect',
      attempt,
      delayMs: Math.round(random() * policy.immediateMaxDelayMs),
    };
  }
  const spread = (random() * 2 - 1) * policy.jitter;
  return { action: 'reconnect', attempt, delayMs: Math.round(policy.intervalMs * (1 + spread)) };
}
