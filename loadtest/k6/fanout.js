// Fan-out: big rooms. MEMBERS members join each of ROOMS rooms; SENDERS of each room send RATE
// messages per second in total for HOLD seconds; every member measures delivery latency and
// counts gaps in the room's seq. Shares its sizes with the bench (workloads.json → fanout).
//
//   k6 run -e BASE_URL=http://127.0.0.1:8080 -e RATE=40 loadtest/k6/fanout.js
/* global __ENV, __VU, open */
import { Counter, Trend } from 'k6/metrics';
import { clearInterval, setInterval, setTimeout } from 'k6/timers';
import { WebSocket } from 'k6/websockets';
import { credentials, probeBody, probeSentAt, RUN_ID, seqTracker, socketUrl } from './lib.js';
import { FrameType } from './protocol.js';

const W = JSON.parse(open('../workloads/workloads.json'));
const F = W.fanout;
const ROOMS = Number(__ENV.ROOMS || F.rooms);
const MEMBERS = Number(__ENV.MEMBERS || F.members);
const SENDERS = Number(__ENV.SENDERS || F.senders);
const RATE = Number(__ENV.RATE || F.roomMessagesPerSecond[2]);
const HOLD_S = Number(__ENV.HOLD || 60);
/** Senders wait this long so every member has joined before the first message. */
const JOIN_MS = Number(__ENV.JOIN_MS || 15000);

export const options = {
  scenarios: {
    fanout: {
      executor: 'per-vu-iterations',
      vus: ROOMS * MEMBERS,
      iterations: 1,
      maxDuration: `${Math.ceil(JOIN_MS / 1000) + HOLD_S + 60}s`,
    },
  },
  thresholds: {
    delivery_latency: [`p(95)<${W.slo.p95Ms}`, `p(99)<${W.slo.p99Ms}`],
    messages_lost: ['count==0'],
    messages_received: ['count>0'],
    checks: ['rate>0.99'],
  },
};

const deliveryLatency = new Trend('delivery_latency', true);
const messagesLost = new Counter('messages_lost');
const messagesReceived = new Counter('messages_received');
const messagesSent = new Counter('messages_sent');

export default function () {
  const index = __VU - 1;
  const room = `${RUN_ID}-fanout-${index % ROOMS}`;
  const member = Math.floor(index / ROOMS);
  const name = `m${member}`;
  const token = credentials(room, name);
  if (!token) return;

  const ws = new WebSocket(socketUrl(room, token));
  const seqs = seqTracker();
  let n = 0;

  ws.onopen = () => {
    let interval = null;
    if (member < SENDERS) {
      setTimeout(() => {
        interval = setInterval(
          () => {
            n += 1;
            messagesSent.add(1);
            ws.send(
              JSON.stringify({
                type: FrameType.Message,
                body: probeBody(n, W.message.bodyBytes),
                client_id: `${name}-${n}`,
              }),
            );
          },
          (1000 * SENDERS) / RATE,
        );
      }, JOIN_MS);
    }
    setTimeout(
      () => {
        if (interval !== null) clearInterval(interval);
        // Let the last messages arrive before counting what is missing.
        setTimeout(() => {
          messagesLost.add(seqs.lost());
          ws.close();
        }, 3000);
      },
      JOIN_MS + HOLD_S * 1000,
    );
  };

  ws.onmessage = (event) => {
    const frame = JSON.parse(event.data);
    if (frame.type !== FrameType.Message || Array.isArray(frame.messages)) return;
    seqs.see(frame.seq);
    messagesReceived.add(1);
    const sentAt = probeSentAt(frame.body);
    if (sentAt !== null) deliveryLatency.add(Date.now() - sentAt);
  };
}
