// Connection soak: CONNECTIONS sockets ramp up, each idles in a room of `members` with a heartbeat
// every PING_INTERVAL_MS, and stays HOLD seconds. Fails on slow connects, failed heartbeats or
// connections the server drops. Shares its sizes with the bench (workloads.json → idle).
//
//   k6 run -e BASE_URL=http://127.0.0.1:8080 -e CONNECTIONS=2000 loadtest/k6/soak.js
/* global __ENV, __VU, open */
import { Counter, Trend } from 'k6/metrics';
import { clearInterval, setInterval, setTimeout } from 'k6/timers';
import { WebSocket } from 'k6/websockets';
import { credentials, RUN_ID, socketUrl } from './lib.js';
import { FrameType, PING_INTERVAL_MS } from './protocol.js';

const W = JSON.parse(open('../workloads/workloads.json'));
const I = W.idle;
const CONNECTIONS = Number(__ENV.CONNECTIONS || I.connections);
const HOLD_S = Number(__ENV.HOLD || I.holdSeconds);
const RAMP = __ENV.RAMP || '60s';

export const options = {
  scenarios: {
    soak: {
      executor: 'ramping-vus',
      startVUs: 0,
      stages: [
        { duration: RAMP, target: CONNECTIONS },
        { duration: `${HOLD_S}s`, target: CONNECTIONS },
      ],
      gracefulRampDown: `${HOLD_S + 30}s`,
    },
  },
  thresholds: {
    ws_connect_time: ['p(95)<1000', 'p(99)<3000'],
    heartbeat_rtt: [`p(99)<${W.slo.p99Ms}`],
    unexpected_closes: ['count==0'],
    checks: ['rate>0.99'],
  },
};

const connectTime = new Trend('ws_connect_time', true);
const heartbeatRtt = new Trend('heartbeat_rtt', true);
const unexpectedCloses = new Counter('unexpected_closes');

export default function () {
  const room = `${RUN_ID}-soak-${Math.floor((__VU - 1) / I.members)}`;
  const name = `s${__VU}`;
  const token = credentials(room, name);
  if (!token) return;

  const started = Date.now();
  const ws = new WebSocket(socketUrl(room, token));
  let closing = false;
  let pingSentAt = 0;
  let interval = null;

  ws.onopen = () => {
    connectTime.add(Date.now() - started);
    interval = setInterval(() => {
      pingSentAt = Date.now();
      ws.send(JSON.stringify({ type: FrameType.Heartbeat }));
    }, PING_INTERVAL_MS);
    setTimeout(() => {
      closing = true;
      clearInterval(interval);
      ws.close();
    }, HOLD_S * 1000);
  };

  ws.onmessage = (event) => {
    const frame = JSON.parse(event.data);
    if (frame.type === FrameType.Heartbeat && pingSentAt > 0) {
      heartbeatRtt.add(Date.now() - pingSentAt);
      pingSentAt = 0;
    }
  };

  ws.onclose = () => {
    if (interval !== null) clearInterval(interval);
    if (!closing) unexpectedCloses.add(1);
  };
}
