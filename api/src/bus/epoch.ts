import { randomBytes } from 'node:crypto';

/** Random per process, so a restarted process never hands out an epoch it handed out before. */
const PROCESS_PART = randomBytes(6).toString('base64url');
let counter = 0;

/**
 * A new room epoch: a short opaque string, unique per process (a counter) and across processes
 * and restarts (a random part). A room gets one whenever its `seq` starts (again).
 */
export function newEpoch(): string {
  counter += 1;
  return `${PROCESS_PART}${counter.toString(36)}`;
}
