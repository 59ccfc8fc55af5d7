/**
 * A load-client process: owns a slice of a workload's connections, sends the messages the parent
 * plans, and reports per-message send→receive latency, counts and its own CPU over IPC. Every
 * timer is bounded by the step it serves; the process exits when the parent says so or goes away.
 */
import {
  type ChildLifecycle,
  credentials,
  emptyHistogram,
  nowMs,
  openAll,
  probeBody,
  RawClient,
  readProbe,
  record,
  serveParent,
  socketUrl,
  ticket,
} from '@taco/harness';
import { FrameType, HISTORY_REQUEST_COUNT } from '@taco/protocol';
import { io } from 'socket.io-client';
import WebSocket from 'ws';
import { poissonGaps } from '../k6/arrivals.js';
import type { ServerId } from './servers';

/** One connection of a workload: `id` its index in the whole workload. */
export interface ConnSpec {
  id: number;
  port: number;
  /** Where to ask for credentials (Taco Chat), when not `port`. */
  httpPort?: number | undefined;
  room: string;
  name: string;
}

/** What the parent (session.ts) asks; `senders` index the client's own connections. */
export type ParentMessage =
  | { type: 'connect'; kind: ServerId; conns: ConnSpec[]; concurrency: number; web: boolean }
  | {
      type: 'step';
      step: number;
      senders: number[];
      perSecond: number;
      durationMs: number;
      bodyBytes: number;
      /** Each sender on a fixed schedule, or Poisson arrivals seeded by `seed`, its id and the rate. */
      arrivals: Arrivals;
      seed: number;
    }
  /** Every connection sends a heartbeat each `periodMs`, the `total` of the crowd spread evenly. */
  | { type: 'heartbeat'; periodMs: number; total: number }
  | { type: 'peek' }
  | { type: 'collect'; step: number }
  /** Closes every connection (no heartbeat left), the process staying up for more steps. */
  | { type: 'leave' }
  | { type: 'close' };

/** CPU and wall seconds are the client's own since the step started (while it was sending). */
export type ClientMessage =
  | ChildLifecycle
  | { type: 'sent'; step: number; sent: number; cpuSeconds: number; wallSeconds: number }
  | { type: 'count'; received: number }
  | { type: 'beating' }
  | { type: 'left' }
  | ({ type: 'stats'; step: number; histogram: number[] } & ReturnType<typeof counts>);

type StepMessage = Extract<ParentMessage, { type: 'step' }>;
export type Arrivals = 'fixed' | 'poisson';

const CONNECT_TIMEOUT_MS = 30_000;

interface Conn {
  spec: ConnSpec;
  send(frame: object): void;
  close(): void;
}

const state = {
  step: -1,
  received: 0,
  histogram: emptyHistogram(),
  errors: 0,
  closed: 0,
  cpuAtStep: process.cpuUsage(),
  wallAtStep: nowMs(),
  closing: false,
};
let conns: Conn[] = [];
const heartbeats: NodeJS.Timeout[] = [];

const reply = (message: ClientMessage) => process.send?.(message);

function onFrame(frame: { type: unknown; body?: unknown }): void {
  if (frame.type === FrameType.Error) state.errors += 1;
  if (frame.type !== FrameType.Message) return;
  const probe = readProbe(frame.body);
  if (probe === null || probe.s !== state.step) return;
  state.received += 1;
  record(state.histogram, nowMs() - probe.t);
}

function onClose(): void {
  if (!state.closing) state.closed += 1;
}

/** A socket by the harness's raw client, which hands every frame to `onFrame` unqueued. */
async function openWs(url: string, spec: ConnSpec): Promise<Conn> {
  const options = { perMessageDeflate: false, handshakeTimeout: CONNECT_TIMEOUT_MS };
  const client = new RawClient(new WebSocket(url, options), 'load client', onFrame);
  await client.opened;
  void client.closed.then(onClose);
  return { spec, send: (frame) => client.send(frame), close: () => client.socket.terminate() };
}

function openSocketIo(spec: ConnSpec): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const socket = io(`http://127.0.0.1:${spec.port}`, {
      transports: ['websocket'],
      forceNew: true,
      reconnection: false,
      timeout: CONNECT_TIMEOUT_MS,
      query: { room: spec.room, name: spec.name },
    });
    socket.once('connect', () => {
      socket.on('message', onFrame);
      socket.on('disconnect', onClose);
      resolve({
        spec,
        send: (frame) => socket.emit('message', frame),
        close: () => socket.disconnect(),
      });
    });
    socket.once('connect_error', reject);
  });
}

/**
 * Opens one connection; `web` joins Taco Chat as the web client does: credentials, a single-use
 * ticket for the socket, then the history request.
 */
async function connectOne(kind: ServerId, spec: ConnSpec, web: boolean): Promise<Conn> {
  const { port, room, name } = spec;
  if (kind === 'socketio') return openSocketIo(spec);
  if (kind === 'raw') {
    const path = `/api/room/${encodeURIComponent(room)}/ws?name=${encodeURIComponent(name)}`;
    return openWs(`ws://127.0.0.1:${port}${path}`, spec);
  }
  // The reference client's credential call (kept-alive node:http), then a plain socket: the hot
  // path stays this file's own.
  const token = await credentials(`http://127.0.0.1:${spec.httpPort ?? port}`, room, name);
  const base = `http://127.0.0.1:${port}`;
  if (!web) return openWs(socketUrl(base, room, { token }), spec);
  const once = (await ticket(base, room, token)) ?? '';
  const conn = await openWs(socketUrl(base, room, { ticket: once }), spec);
  conn.send({ type: FrameType.History, count: HISTORY_REQUEST_COUNT });
  return conn;
}

/**
 * Sends each sender's share of the step's messages on a 10 ms tick, then reports what it sent.
 * Fixed arrivals: messages due by the sender's rate from its random phase; Poisson: every arrival
 * time up to now, the sender's gaps seeded by the run's seed, its id and the rate.
 */
function runStep(message: StepMessage): void {
  const { step, senders, perSecond, durationMs, bodyBytes, arrivals, seed } = message;
  Object.assign(state, { step, received: 0, histogram: emptyHistogram(), errors: 0 });
  Object.assign(state, { cpuAtStep: process.cpuUsage(), wallAtStep: nowMs() });
  const sent = senders.map(() => 0);
  // Each sender starts at its own random phase, so senders never fire in lockstep bursts.
  const phase = senders.map(() => Math.random());
  const gaps = senders.map((index) =>
    poissonGaps(1000 / perSecond, seed * 100_003 + (conns[index]?.spec.id ?? 0) * 31 + perSecond),
  );
  const next = gaps.map((gap) => gap());
  const due = (i: number, elapsed: number) => {
    if (arrivals === 'fixed')
      return Math.floor((perSecond * elapsed) / 1000 + (phase[i] ?? 0)) - (sent[i] ?? 0);
    let count = 0;
    for (; (next[i] ?? Infinity) <= elapsed; count += 1) next[i] = (next[i] ?? 0) + gaps[i]!();
    return count;
  };
  let n = 0;
  const timer = setInterval(() => {
    const elapsed = Math.min(nowMs() - state.wallAtStep, durationMs);
    senders.forEach((index, i) => {
      const conn = conns[index];
      const count = due(i, elapsed);
      for (let k = 0; conn && k < count; k += 1) {
        n += 1;
        const body = probeBody(step, n, bodyBytes);
        conn.send({ type: FrameType.Message, body, client_id: `c${conn.spec.id}-${n}` });
      }
      sent[i] = (sent[i] ?? 0) + Math.max(0, count);
    });
    if (elapsed < durationMs) return;
    clearInterval(timer);
    const { cpuSeconds, wallSeconds } = counts();
    reply({ type: 'sent', step, sent: n, cpuSeconds, wallSeconds });
  }, 10);
}

/** What was received since the step started, and this process's CPU and wall seconds meanwhile. */
function counts() {
  const cpu = process.cpuUsage(state.cpuAtStep);
  const { received, errors, closed } = state;
  const wallSeconds = (nowMs() - state.wallAtStep) / 1000;
  return { received, cpuSeconds: (cpu.user + cpu.system) / 1e6, wallSeconds, errors, closed };
}

/** Closes every connection on purpose (not counted as dropped) and stops the heartbeats. */
function leave(): void {
  state.closing = true;
  for (const timer of heartbeats) clearTimeout(timer);
  for (const conn of conns) conn.close();
  conns = [];
}

serveParent<ParentMessage>({
  connect: ({ kind, conns: specs, concurrency, web }) =>
    void openAll(specs, concurrency, (spec) => connectOne(kind, spec, web)).then(
      ({ opened, tally }) => {
        conns = opened;
        reply(tally);
      },
    ),
  step: runStep,
  heartbeat: ({ periodMs, total }) => {
    for (const conn of conns) {
      const beat = () => conn.send({ type: FrameType.Heartbeat });
      const first = () => {
        beat();
        heartbeats.push(setInterval(beat, periodMs));
      };
      heartbeats.push(setTimeout(first, (periodMs * conn.spec.id) / total));
    }
    reply({ type: 'beating' });
  },
  peek: () => reply({ type: 'count', received: state.received }),
  collect: ({ step }) => reply({ type: 'stats', step, histogram: state.histogram, ...counts() }),
  leave: () => {
    leave();
    reply({ type: 'left' });
  },
  close: () => {
    leave();
    reply({ type: 'closed' });
    setTimeout(() => process.exit(0), 200).unref();
  },
});
