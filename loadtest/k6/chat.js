// Realistic chat (loadtest/README.md, "What the scripts do"): each iteration is one person's
// session (a Member) in a room planned by setup().
//
//   k6 run -e BASE_URL=http://127.0.0.1:8080 -e PROFILE=smoke loadtest/k6/chat.js
/* global __ENV, __VU, __ITER */
import { between, envCount, MAX_MEMBER_RATE, newPlan, PROFILE, roomSizes } from './run.js';
import { roundRobin, scriptOptions, sleep, TIMING } from './run.js';
import { FINISH_MAX_MS, Member } from './member.js';

const C = PROFILE.chat;
const VUS = envCount('VUS', C.vus);
const ROOM_MIN = envCount('ROOM_MIN', C.roomSize.min);
const ROOM_MAX = Math.max(ROOM_MIN, envCount('ROOM_MAX', C.roomSize.max, 0));
const MESSAGES = envCount('MESSAGES', C.messagesPerSession);
// k6 checks the stage durations before the run starts: a bad -e DURATION never runs.
const HOLD = __ENV.DURATION || C.hold;

// One message and one typing frame per think time: within the api's per-connection limits.
if (C.thinkTimeMs.min + C.typingBeforeSendMs < 1000 / MAX_MEMBER_RATE) {
  throw new Error(`chat: think time + typing must be at least ${1000 / MAX_MEMBER_RATE} ms`);
}

/** The longest one session and the pause after it can take (every wait in them is bounded). */
const SENDING_MAX_MS = MESSAGES * (C.thinkTimeMs.max + C.typingBeforeSendMs);
const SESSION_MAX_MS = TIMING.joinTimeoutMs + C.companyWaitMs + SENDING_MAX_MS + FINISH_MAX_MS;
const GRACE = `${Math.ceil((SESSION_MAX_MS + C.pauseBetweenSessionsMs.max) / 1000) + 5}s`;

export const options = scriptOptions(
  'chat',
  {
    executor: 'ramping-vus',
    startVUs: 0,
    stages: [
      { duration: C.rampUp, target: VUS },
      { duration: HOLD, target: VUS },
      { duration: C.rampDown, target: 0 },
    ],
    // Longer than one session: a VU asked to stop finishes its session first.
    gracefulRampDown: GRACE,
    gracefulStop: GRACE,
  },
  { 'chat_messages_received{from:others}': ['count>0'] },
);

export function setup() {
  const sizes = roomSizes(VUS, ROOM_MIN, ROOM_MAX);
  const about = `${VUS} VUs in ${sizes.length} rooms of ${sizes.join(', ')}`;
  const plan = newPlan('chat', sizes.length, `${about}, ${MESSAGES} messages a session`);
  return { ...plan, sizes, seats: roundRobin(sizes) };
}

export default async function (plan) {
  const room = plan.seats[(__VU - 1) % plan.seats.length];
  const member = new Member(plan.rooms[room], `vu${__VU}-${__ITER}`);
  if (await member.join()) {
    // People drift in: wait (bounded) until the room's other members are here.
    await member.waitUntil(() => member.roster.size >= plan.sizes[room], C.companyWaitMs);
    for (let i = 1; i <= MESSAGES && !member.gone; i += 1) {
      await sleep(between(C.thinkTimeMs.min, C.thinkTimeMs.max));
      member.typing(true);
      await sleep(C.typingBeforeSendMs);
      await member.send(i === MESSAGES);
    }
  }
  await member.finish();
  await sleep(between(C.pauseBetweenSessionsMs.min, C.pauseBetweenSessionsMs.max));
}
