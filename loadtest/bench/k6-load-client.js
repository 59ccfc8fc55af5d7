// The benchmark's load client in k6 (`npm run bench -- --driver k6`): each VU plays one Node
// load-client process (bench/load-client.ts) and answers the same requests, fetched from the
// benchmark's control server (bench/k6-pool.ts) instead of over IPC: connect a slice of the
// workload's members, send the planned messages of a step on a 10 ms tick, count what arrives and
// record the send→receipt latency in the same histogram buckets. k6 has no sub-millisecond clock,
// so send and receipt times are whole milliseconds (±1 ms on each latency).
//
// Run by the benchmark, never by hand: k6 run -e CONTROL=http://127.0.0.1:PORT -e CLIENTS=N
//   -e HIST_MIN_MS=… -e HIST_GROWTH=… -e HIST_BUCKETS=… loadtest/bench/k6-load-client.js
/* global __ENV */
import exec from 'k6/execution';
import http from 'k6/http';
import { clearInterval, clearTimeout, setInterval, setTimeout } from 'k6/timers';
import { WebSocket } from 'k6/websockets';
import { ApiPath, FrameType } from '../k6/protocol.js';

const CONTROL = __ENV.CONTROL;
const CLIENTS = Number(__ENV.CLIENTS || 1);
const HIST_MIN_MS = Number(__ENV.HIST_MIN_MS);
const LOG_GROWTH = Math.log(Number(__ENV.HIST_GROWTH));
const BUCKETS = Number(__ENV.HIST_BUCKETS);
/** Bounds every loop: polls for the next request (each waits at most POLL_SECONDS). */
const MAX_POLLS = 100000;
const POLL_SECONDS = 20;
const CONNECT_TIMEOUT_MS = 30000;

export const options = {
  scenarios: {
    clients: {
      executor: 'per-vu-iterations',
      vus: CLIENTS,
      iterations: 1,
      maxDuration: '2h',
    },
  },
  // The benchmark reads its figures from the replies; k6's own summary is not needed.
  summaryTrendStats: ['count'],
};

function emptyHistogram() {
  return new Array(BUCKETS).fill(0);
}

function record(histogram, ms) {
  const index =
    ms <= HIST_MIN_MS
      ? 0
      : Math.min(BUCKETS - 1, Math.ceil(Math.log(ms / HIST_MIN_MS) / LOG_GROWTH));
  histogram[index] += 1;
}

function probeBody(step, n, bytes) {
  const t = Date.now();
  const pad = Math.max(0, bytes - JSON.stringify({ t, n, s: step, p: '' }).length);
  return JSON.stringify({ t, n, s: step, p: 'x'.repeat(pad) });
}

function readProbe(body) {
  if (typeof body !== 'string' || body.charAt(0) !== '{') return null;
  try {
    const value = JSON.parse(body);
    return typeof value.t === 'number' && typeof value.s === 'number' ? value : null;
  } catch {
    return null;
  }
}

export default async function () {
  const client = exec.vu.idInTest - 1;
  const state = {
    step: -1,
    received: 0,
    histogram: emptyHistogram(),
    errors: 0,
    closed: 0,
    closing: false,
    startedAt: Date.now(),
  };
  let conns = [];

  const reply = (message) =>
    http.asyncRequest('POST', `${CONTROL}/reply?client=${client}`, JSON.stringify(message), {
      headers: { 'Content-Type': 'application/json' },
      timeout: '30s',
    });

  const onFrame = (frame) => {
    if (frame === null || typeof frame !== 'object') return;
    if (frame.type === FrameType.Error) {
      state.errors += 1;
      return;
    }
    if (frame.type !== FrameType.Message) return;
    const probe = readProbe(frame.body);
    if (probe === null || probe.s !== state.step) return;
    state.received += 1;
    record(state.histogram, Date.now() - probe.t);
  };

  const parse = (text) => {
    try {
      return JSON.parse(text);
    } catch {
      state.errors += 1;
      return null;
    }
  };

  // One socket; `socketio` speaks Engine.IO 4 / Socket.IO 5 framing over it by hand.
  const openSocket = (kind, url, spec) =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      let open = false;
      const timer = setTimeout(() => {
        if (!open) {
          ws.close();
          reject(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`));
        }
      }, CONNECT_TIMEOUT_MS);
      const ready = () => {
        open = true;
        clearTimeout(timer);
        resolve({
          spec,
          send: (frame) =>
            ws.send(
              kind === 'socketio'
                ? `42${JSON.stringify(['message', frame])}`
                : JSON.stringify(frame),
            ),
          close: () => ws.close(),
        });
      };
      ws.onopen = () => {
        if (kind !== 'socketio') ready();
      };
      ws.onmessage = (event) => {
        const text = String(event.data);
        if (kind !== 'socketio') {
          onFrame(parse(text));
          return;
        }
        // Engine.IO: 0 open, 2 ping (answer 3); Socket.IO: 40 connected, 42 event.
        if (text.startsWith('42')) {
          const event2 = parse(text.slice(2));
          if (Array.isArray(event2) && event2[0] === 'message') onFrame(event2[1]);
        } else if (text === '2') {
          ws.send('3');
        } else if (text.startsWith('0')) {
          ws.send('40');
        } else if (text.startsWith('40')) {
          ready();
        }
      };
      ws.onerror = () => {};
      ws.onclose = () => {
        if (!open) {
          clearTimeout(timer);
          reject(new Error('closed before it was open'));
        } else if (!state.closing) {
          state.closed += 1;
        }
      };
    });

  const connectOne = async (kind, spec) => {
    const room = encodeURIComponent(spec.room);
    const name = encodeURIComponent(spec.name);
    if (kind === 'taco') {
      const res = await http.asyncRequest(
        'POST',
        `http://127.0.0.1:${spec.httpPort || spec.port}${ApiPath.roomCredentials(spec.room)}`,
        JSON.stringify({ sender_id: spec.name }),
        { headers: { 'Content-Type': 'application/json' }, timeout: '30s' },
      );
      const token = res.status === 200 ? res.json('token') : null;
      if (typeof token !== 'string') throw new Error(`credentials: HTTP ${res.status} ${res.body}`);
      return openSocket(
        kind,
        `ws://127.0.0.1:${spec.port}${ApiPath.roomSocket(spec.room, token)}`,
        spec,
      );
    }
    if (kind === 'raw') {
      return openSocket(kind, `ws://127.0.0.1:${spec.port}/api/room/${room}/ws?name=${name}`, spec);
    }
    return openSocket(
      kind,
      `ws://127.0.0.1:${spec.port}/socket.io/?EIO=4&transport=websocket&room=${room}&name=${name}`,
      spec,
    );
  };

  const connectAll = async (message) => {
    const opened = [];
    let next = 0;
    let failed = 0;
    let firstError = null;
    const worker = async () => {
      while (next < message.conns.length) {
        const spec = message.conns[next];
        next += 1;
        try {
          opened.push(await connectOne(message.kind, spec));
        } catch {
          // Once more: k6 has been seen to lose a handshake (a socket that never opened and never
          // failed); a second loss is the server's.
          try {
            opened.push(await connectOne(message.kind, spec));
          } catch (error) {
            failed += 1;
            if (firstError === null)
              firstError = String(error && error.message ? error.message : error);
          }
        }
      }
    };
    const workers = [];
    for (let i = 0; i < Math.max(1, message.concurrency); i += 1) workers.push(worker());
    await Promise.all(workers);
    opened.sort((a, b) => a.spec.id - b.spec.id);
    conns = opened;
    await reply({ type: 'connected', ok: opened.length, failed, firstError });
  };

  const runStep = (message) => {
    state.step = message.step;
    state.received = 0;
    state.histogram = emptyHistogram();
    state.errors = 0;
    state.startedAt = Date.now();
    const senders = message.senders;
    const sent = senders.map(() => 0);
    const phase = senders.map(() => Math.random());
    const sentByRoom = {};
    const started = Date.now();
    let n = 0;
    const timer = setInterval(() => {
      const elapsed = Math.min(Date.now() - started, message.durationMs);
      for (let i = 0; i < senders.length; i += 1) {
        const conn = conns[senders[i].conn];
        if (!conn) continue;
        const due = Math.floor((senders[i].perSecond * elapsed) / 1000 + phase[i]) - sent[i];
        for (let k = 0; k < due; k += 1) {
          n += 1;
          conn.send({
            type: FrameType.Message,
            body: probeBody(message.step, n, message.bodyBytes),
            client_id: `c${conn.spec.id}-${n}`,
          });
          sentByRoom[conn.spec.room] = (sentByRoom[conn.spec.room] || 0) + 1;
        }
        sent[i] += Math.max(0, due);
      }
      if (elapsed >= message.durationMs) {
        clearInterval(timer);
        // CPU is read by the benchmark from /proc (k6 is one process for every VU).
        void reply({
          type: 'sent',
          step: message.step,
          sentByRoom,
          cpuSeconds: 0,
          wallSeconds: (Date.now() - state.startedAt) / 1000,
        });
      }
    }, 10);
  };

  await reply({ type: 'ready' });
  for (let polls = 0; polls < MAX_POLLS && !state.closing; polls += 1) {
    const res = await http.asyncRequest('GET', `${CONTROL}/next?client=${client}`, null, {
      timeout: `${POLL_SECONDS + 10}s`,
    });
    if (res.status === 204) continue;
    if (res.status !== 200) break;
    const message = res.json();
    switch (message.type) {
      case 'connect':
        void connectAll(message);
        break;
      case 'step':
        runStep(message);
        break;
      case 'peek':
        void reply({ type: 'count', received: state.received });
        break;
      case 'collect':
        void reply({
          type: 'stats',
          step: message.step,
          received: state.received,
          histogram: state.histogram,
          cpuSeconds: 0,
          wallSeconds: (Date.now() - state.startedAt) / 1000,
          errors: state.errors,
          closed: state.closed,
        });
        break;
      case 'close':
        state.closing = true;
        for (const conn of conns) conn.close();
        conns = [];
        await reply({ type: 'closed' });
        break;
    }
  }
}
