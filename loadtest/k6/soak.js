// Connection soak (loadtest/README.md, "What the scripts do"): idle-ish members, ramped in, held,
// finished. A VU holds CONNECTIONS_PER_VU sockets: thousands of sockets, not thousands of VUs.
//
//   k6 run -e BASE_URL=http://127.0.0.1:8080 -e CONNECTIONS=2000 -e HOLD=600 loadtest/k6/soak.js
/* global __VU */
import { clearInterval, setInterval } from 'k6/timers';
import { between, envCount, envNumber, MAX_MEMBER_RATE, newPlan, oncePerVu } from './run.js';
import { PROFILE, scriptOptions, sleep, SLO, TIMING } from './run.js';
import { FINISH_MAX_MS, Member } from './member.js';

const S = PROFILE.soak;
const CONNECTIONS = envCount('CONNECTIONS', S.connections);
const PER_VU = Math.min(CONNECTIONS, envCount('CONNECTIONS_PER_VU', S.connectionsPerVu));
const VUS = Math.ceil(CONNECTIONS / PER_VU);
const ROOM_SIZE = envCount('ROOM_SIZE', S.roomSize);
const ROOMS = Math.ceil(CONNECTIONS / ROOM_SIZE);
const RAMP_MS = 1000 * envNumber('RAMP', S.rampSeconds, 0);
const HOLD_MS = 1000 * envNumber('HOLD', S.holdSeconds, 1);
const HEARTBEAT_MS = envNumber('HEARTBEAT_MS', S.heartbeatMs, 1000);
const MAX_UNEXPECTED_CLOSES = envCount('MAX_UNEXPECTED_CLOSES', 0, 0);
if (S.messageEveryMs.min < 1000 / MAX_MEMBER_RATE) {
  throw new Error(`soak: messageEveryMs.min must be at least ${1000 / MAX_MEMBER_RATE} ms`);
}

export const options = scriptOptions(
  'soak',
  oncePerVu(VUS, RAMP_MS + HOLD_MS + TIMING.joinTimeoutMs + FINISH_MAX_MS + 8000),
  {
    chat_unexpected_closes: [`count<=${MAX_UNEXPECTED_CLOSES}`],
    chat_heartbeat_rtt: [`p(99)<${SLO.p99Ms}`],
    chat_heartbeats_missed: ['count==0'],
  },
);

export const setup = () =>
  newPlan(
    'soak',
    ROOMS,
    `${CONNECTIONS} connections (${VUS} VUs × ${PER_VU}) in ${ROOMS} rooms of ≤ ${ROOM_SIZE}, ` +
      `ramp ${RAMP_MS / 1000} s, hold ${HOLD_MS / 1000} s`,
  );

/** One connection's whole life: stagger in, idle with heartbeats and a few messages, leave. */
async function connection(plan, index) {
  const stopAt = plan.startedAt + RAMP_MS + HOLD_MS;
  await sleep(plan.startedAt + (RAMP_MS * index) / CONNECTIONS - Date.now());
  const name = `idle${Math.floor(index / ROOMS)}`;
  const member = new Member(plan.rooms[index % ROOMS], name, { deadline: stopAt });
  if (await member.join()) {
    const heartbeats = setInterval(() => member.heartbeat(), HEARTBEAT_MS);
    const nextSend = () => Date.now() + between(S.messageEveryMs.min, S.messageEveryMs.max);
    for (let next = nextSend(); next < stopAt && !member.gone; next = nextSend()) {
      await sleep(next - Date.now());
      await member.send();
    }
    await sleep(stopAt - Date.now());
    clearInterval(heartbeats);
  }
  await member.finish();
}

export default async function (plan) {
  const first = (__VU - 1) * PER_VU;
  const count = Math.min(PER_VU, CONNECTIONS - first);
  await Promise.all(Array.from({ length: count }, (_, i) => connection(plan, first + i)));
}
