// Connection soak: CONNECTIONS members, idle-ish, held a long time. setup() fixes the run's clock;
// member k opens its socket at k / CONNECTIONS of RAMP into the run (rooms of ROOM_SIZE, seated
// round-robin), sends a heartbeat (frame 6) every HEARTBEAT_MS and now and then a message, until
// RAMP + HOLD; then it finishes (Member.finish) and leaves. A closed socket reconnects and resumes
// as the web client does (Member), never in a tight loop. One VU holds CONNECTIONS_PER_VU members
// (each its own socket), so thousands of connections do not need thousands of VUs.
//
//   k6 run -e BASE_URL=http://127.0.0.1:8080 -e PROFILE=smoke loadtest/k6/soak.js
//   k6 run -e BASE_URL=http://127.0.0.1:8080 -e CONNECTIONS=2000 -e HOLD=600 loadtest/k6/soak.js
/* global __VU */
import { clearInterval, setInterval } from 'k6/timers';
import { envNumber, MAX_MEMBER_RATE, PROFILE, PROFILE_NAME, SLO, TIMING } from './config.js';
import { checkSession, COMMON_OPTIONS, commonThresholds } from './chat-metrics.js';
import { between, newRunId, roomName, sleep } from './plan.js';
import { assertReady } from './http-calls.js';
import { FINISH_MAX_MS, Member } from './member.js';

const S = PROFILE.soak;
const CONNECTIONS = envNumber('CONNECTIONS', S.connections, { min: 1, integer: true });
const PER_VU = Math.min(
  CONNECTIONS,
  envNumber('CONNECTIONS_PER_VU', S.connectionsPerVu, { min: 1, integer: true }),
);
const VUS = Math.ceil(CONNECTIONS / PER_VU);
const ROOM_SIZE = envNumber('ROOM_SIZE', S.roomSize, { min: 1, integer: true });
const ROOMS = Math.ceil(CONNECTIONS / ROOM_SIZE);
const RAMP_MS = 1000 * envNumber('RAMP', S.rampSeconds, { min: 0 });
const HOLD_MS = 1000 * envNumber('HOLD', S.holdSeconds, { min: 1 });
const HEARTBEAT_MS = envNumber('HEARTBEAT_MS', S.heartbeatMs, { min: 1000 });
const MESSAGE_EVERY = S.messageEveryMs;
const MAX_UNEXPECTED_CLOSES = envNumber('MAX_UNEXPECTED_CLOSES', 0, { integer: true });
if (MESSAGE_EVERY.min < 1000 / MAX_MEMBER_RATE) {
  throw new Error(`soak: messageEveryMs.min must be at least ${1000 / MAX_MEMBER_RATE} ms`);
}

const MAX_DURATION_S = Math.ceil(
  (RAMP_MS + HOLD_MS + TIMING.joinTimeoutMs + FINISH_MAX_MS + 8000) / 1000,
);

export const options = {
  ...COMMON_OPTIONS,
  scenarios: {
    soak: {
      executor: 'per-vu-iterations',
      vus: VUS,
      iterations: 1,
      maxDuration: `${MAX_DURATION_S}s`,
      gracefulStop: '10s',
    },
  },
  thresholds: commonThresholds({
    chat_unexpected_closes: [`count<=${MAX_UNEXPECTED_CLOSES}`],
    chat_heartbeat_rtt: [`p(99)<${SLO.p99Ms}`],
    chat_heartbeats_missed: ['count==0'],
  }),
};

export function setup() {
  assertReady();
  const runId = newRunId();
  const rooms = Array.from({ length: ROOMS }, (_, index) => roomName(runId, 'soak', index));
  console.log(
    `soak ${PROFILE_NAME}: run ${runId}, ${CONNECTIONS} connections (${VUS} VUs × ${PER_VU}) in ` +
      `${ROOMS} rooms of ≤ ${ROOM_SIZE}, ramp ${RAMP_MS / 1000} s, hold ${HOLD_MS / 1000} s`,
  );
  return { runId, rooms, startedAt: Date.now() };
}

/** One connection's whole life: stagger in, idle with heartbeats and a few messages, leave. */
async function connection(plan, index) {
  const stopAt = plan.startedAt + RAMP_MS + HOLD_MS;
  await sleep(plan.startedAt + (RAMP_MS * index) / CONNECTIONS - Date.now());
  const room = plan.rooms[index % ROOMS];
  const member = new Member(room, `idle${Math.floor(index / ROOMS)}`, { deadline: stopAt });
  if (await member.join()) {
    const heartbeats = setInterval(() => member.heartbeat(), HEARTBEAT_MS);
    for (;;) {
      const next = Date.now() + between(MESSAGE_EVERY.min, MESSAGE_EVERY.max);
      if (next >= stopAt || member.gone) break;
      await sleep(next - Date.now());
      await member.send();
    }
    await sleep(stopAt - Date.now());
    clearInterval(heartbeats);
  }
  checkSession('soak', await member.finish());
}

export default async function (plan) {
  const first = (__VU - 1) * PER_VU;
  const mine = [];
  for (let index = first; index < Math.min(first + PER_VU, CONNECTIONS); index += 1) {
    mine.push(connection(plan, index));
  }
  await Promise.all(mine);
}
