// Realistic chat: every session asks for credentials over HTTP, joins its room, reads history,
// types, sends a few messages with think time in between, and leaves. Every member measures how
// long each message took from its sender's send to its own screen (the send time rides in the
// body) and counts messages it missed (gaps in the room's seq, own messages never echoed).
//
//   k6 run -e BASE_URL=http://127.0.0.1:8080 loadtest/k6/chat.js
//   docker compose --profile loadtest run --rm k6 run /scripts/k6/chat.js
/* global __ENV, __VU, __ITER, open */
import { Counter, Rate, Trend } from 'k6/metrics';
import { setTimeout } from 'k6/timers';
import { WebSocket } from 'k6/websockets';
import {
  between,
  credentials,
  probeBody,
  probeSentAt,
  RUN_ID,
  seqTracker,
  socketUrl,
} from './lib.js';
import { FrameType, HISTORY_REQUEST_COUNT } from './protocol.js';

const W = JSON.parse(open('../workloads/workloads.json'));
const C = W.chat;
const VUS = Number(__ENV.VUS || C.vus);

export const options = {
  scenarios: {
    chat: {
      executor: 'ramping-vus',
      startVUs: 0,
      stages: [
        { duration: '30s', target: VUS },
        { duration: __ENV.DURATION || C.duration, target: VUS },
        { duration: '30s', target: 0 },
      ],
      gracefulRampDown: '60s',
    },
  },
  thresholds: {
    delivery_latency: [`p(95)<${W.slo.p95Ms}`, `p(99)<${W.slo.p99Ms}`],
    messages_lost: [{ threshold: 'count==0', abortOnFail: false }],
    message_delivered: ['rate>0.999'],
    checks: ['rate>0.99'],
  },
};

const deliveryLatency = new Trend('delivery_latency', true);
const messagesLost = new Counter('messages_lost');
const messagesSent = new Counter('messages_sent');
const messageDelivered = new Rate('message_delivered');
const errorFrames = new Counter('error_frames');

export default function () {
  const room = `${RUN_ID}-chat-${Math.floor((__VU - 1) / C.membersPerRoom)}`;
  const name = `u${__VU}-${__ITER}`;
  const token = credentials(room, name);
  if (!token) return;

  const ws = new WebSocket(socketUrl(room, token));
  const seqs = seqTracker();
  const pending = new Set();
  let sent = 0;

  const sendNext = () => {
    if (sent >= C.messagesPerSession) {
      // Give the last echo time to come back, then leave.
      setTimeout(() => {
        for (let i = 0; i < pending.size; i += 1) messageDelivered.add(false);
        messagesLost.add(pending.size + seqs.lost());
        ws.close();
      }, 2000);
      return;
    }
    ws.send(JSON.stringify({ type: FrameType.Typing, typing: true }));
    setTimeout(() => {
      sent += 1;
      const clientId = `${name}-${sent}`;
      pending.add(clientId);
      messagesSent.add(1);
      ws.send(
        JSON.stringify({
          type: FrameType.Message,
          body: probeBody(sent, W.message.bodyBytes),
          client_id: clientId,
        }),
      );
      setTimeout(sendNext, between(C.thinkTimeMs.min, C.thinkTimeMs.max));
    }, C.typingBeforeSendMs);
  };

  ws.onopen = () => {
    ws.send(JSON.stringify({ type: FrameType.History, count: HISTORY_REQUEST_COUNT }));
    setTimeout(sendNext, between(C.thinkTimeMs.min, C.thinkTimeMs.max));
  };

  ws.onmessage = (event) => {
    const frame = JSON.parse(event.data);
    if (frame.type === FrameType.Error) {
      errorFrames.add(1, { code: frame.code });
      return;
    }
    if (frame.type !== FrameType.Message || Array.isArray(frame.messages)) return;
    seqs.see(frame.seq);
    const sentAt = probeSentAt(frame.body);
    if (sentAt !== null) deliveryLatency.add(Date.now() - sentAt);
    if (frame.client_id !== undefined && pending.delete(frame.client_id)) {
      messageDelivered.add(true);
    }
  };

  ws.onerror = () => {
    errorFrames.add(1, { code: 'socket' });
  };
}
