// Fan-out (loadtest/README.md, "What the scripts do"): one VU per member, a barrier, SENDERS
// send, everyone stays until every sender's last message arrived: received = sent × members.
//
//   k6 run -e BASE_URL=http://127.0.0.1:8080 -e MEMBERS=500 -e RATE=80 loadtest/k6/fanout.js
/* global __VU */
import { Counter } from 'k6/metrics';
import { poissonGaps } from './arrivals.js';
import { envChoice, envCount, envNumber, MAX_MEMBER_RATE, newPlan, oncePerVu } from './run.js';
import { PROFILE, scriptOptions, sleep, TIMING } from './run.js';
import { FINISH_MAX_MS, Member } from './member.js';

const F = PROFILE.fanout;
const ROOMS = envCount('ROOMS', F.rooms);
const MEMBERS = envCount('MEMBERS', F.members, 2);
const RATE = envNumber('RATE', F.roomMessagesPerSecond, 0.1);
const HOLD_S = envNumber('HOLD', F.holdSeconds, 1);
const JOIN_TIMEOUT_MS = envNumber('JOIN_TIMEOUT_MS', F.joinTimeoutMs, 1000);
/** Members arrive spread over this long, not all in the same millisecond. */
const JOIN_SPREAD_MS = Math.min(JOIN_TIMEOUT_MS / 2, envNumber('JOIN_SPREAD_MS', F.joinSpreadMs));
/** `fixed` (evenly spaced) or `poisson` (exponential gaps from SEED and the sender's index). */
const ARRIVALS = envChoice('ARRIVALS', ['fixed', 'poisson'], 'fixed');
const SEED = envCount('SEED', 1, 0);
/** Enough senders that none sends faster than the api lets one connection send. */
const SENDERS = Math.max(envCount('SENDERS', F.senders), Math.ceil(RATE / MAX_MEMBER_RATE - 1e-9));
const needs = `fanout: RATE=${RATE} needs ${SENDERS} senders at ${MAX_MEMBER_RATE}/s each`;
if (SENDERS > MEMBERS) throw new Error(`${needs}, more than MEMBERS=${MEMBERS}`);
/** Each sender sends this many messages, one every INTERVAL_MS. */
const PER_SENDER = Math.max(1, Math.round((HOLD_S * RATE) / SENDERS));
const INTERVAL_MS = (1000 * SENDERS) / RATE;
/** After the barrier: sending, then the wait for every sender's last message. */
const END_WAIT_MS = PER_SENDER * INTERVAL_MS + INTERVAL_MS + TIMING.drainMs + 5000;
const SENDER_NAMES = Array.from({ length: SENDERS }, (_, i) => `fan${i}`);

export const options = scriptOptions(
  'fanout',
  oncePerVu(ROOMS * MEMBERS, JOIN_TIMEOUT_MS + END_WAIT_MS + FINISH_MAX_MS + 3000),
  { 'chat_messages_received{from:others}': ['count>0'], chat_barrier_timeouts: ['count==0'] },
);

/** Members that gave up waiting for the whole room before sending or for the senders to end. */
const barrierTimeouts = new Counter('chat_barrier_timeouts');

export const setup = () =>
  newPlan(
    'fanout',
    ROOMS,
    `${ROOMS} room(s) × ${MEMBERS} members, ${SENDERS} senders × ${PER_SENDER} messages ` +
      `(${RATE}/s per room for ${HOLD_S} s, ${ARRIVALS})`,
  );

export default async function (plan) {
  const index = __VU - 1;
  const memberNo = Math.floor(index / ROOMS);
  await sleep(plan.startedAt + (JOIN_SPREAD_MS * memberNo) / MEMBERS - Date.now());
  const member = new Member(plan.rooms[index % ROOMS], `fan${memberNo}`);
  const joinDeadline = plan.startedAt + JOIN_TIMEOUT_MS;
  if (await member.join(joinDeadline - Date.now())) {
    // The barrier: the whole room is here (bounded by the join deadline of the run).
    const full = () => member.roster.size >= MEMBERS;
    const everyone = await member.waitUntil(full, joinDeadline - Date.now());
    if (!everyone) barrierTimeouts.add(1, { at: 'start' });
    const start = Date.now();
    if (memberNo < SENDERS) {
      // A random phase, then every INTERVAL_MS, or Poisson gaps: timed from the start (no drift).
      const gap = ARRIVALS === 'poisson' ? poissonGaps(INTERVAL_MS, SEED * 100003 + index) : null;
      let at = gap ? gap() : Math.random() * INTERVAL_MS;
      for (let k = 0; k < PER_SENDER && !member.gone; k += 1) {
        await sleep(start + at - Date.now());
        await member.send(k === PER_SENDER - 1);
        at += gap ? gap() : INTERVAL_MS;
      }
    }
    // Everyone stays until the last message of every sender that was here has arrived.
    const senders = SENDER_NAMES.filter((name) => member.roster.has(name));
    const allDone = () =>
      senders.every((name) => member.lastFrom.has(name) || !member.roster.has(name));
    const done = await member.waitUntil(allDone, start + END_WAIT_MS - Date.now());
    if (!done) barrierTimeouts.add(1, { at: 'end' });
  }
  await member.finish();
}
