/**
 * A load-client process: owns a slice of a workload's connections, sends the messages the parent
 * plans, and reports per-message send→receive latency, counts and its own CPU over IPC. Every
 * timer is bounded by the step it serves; the process exits when the parent says so or goes away.
 * Each request is answered by a message of the same type carrying what its handler returned.
 */
import {
  type ChildLifecycle,
  credentials,
  emptyHistogram,
  type Handlers,
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
import { mapValues } from './scenarios/common';
import type { ServerId } from './servers';

export type Arrivals = 'fixed' | 'poisson';

/**
 * Who connects: `connections` members in rooms of `members` (`senders` of each send), the rooms
 * named after `tag`, spread over `ports` (credentials from `httpPort` when given).
 */
export interface Crowd {
  tag: string;
  connections: number;
  members: number;
  senders: number;
  ports: number[];
  httpPort?: number;
  /** How each sender's messages arrive (default fixed), and the seed of Poisson arrivals. */
  arrivals?: { mode: Arrivals; seed: number };
}

/** One connection: `id` its index in the whole crowd. */
type Conn = Awaited<ReturnType<typeof openWs>>;

const CONNECT_TIMEOUT_MS = 30_000;
/** Connections each load client opens at a time. */
const CONNECT_CONCURRENCY = 64;

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
async function openWs(url: string, id: number, sender: boolean) {
  const options = { perMessageDeflate: false, handshakeTimeout: CONNECT_TIMEOUT_MS };
  const client = new RawClient(new WebSocket(url, options), 'load client', onFrame);
  await client.opened;
  void client.closed.then(onClose);
  const [send, close] = [(frame: object) => client.send(frame), () => client.socket.terminate()];
  return { id, sender, send, close };
}

/**
 * Opens connection `id` of the crowd; `web` joins Taco Chat as the web client does: credentials,
 * a single-use ticket for the socket, then the history request.
 */
async function connectOne(kind: ServerId, crowd: Crowd, id: number, web: boolean): Promise<Conn> {
  const member = id % crowd.members;
  const [room, name] = [`${crowd.tag}-${Math.floor(id / crowd.members)}`, `user-${member}`];
  const port = crowd.ports[id % crowd.ports.length] ?? 0;
  const sender = member < crowd.senders;
  if (kind === 'socketio') {
    const socket = io(`http://127.0.0.1:${port}`, {
      transports: ['websocket'],
      forceNew: true,
      reconnection: false,
      timeout: CONNECT_TIMEOUT_MS,
      query: { room, name },
    });
    socket.on('message', onFrame);
    socket.on('disconnect', onClose);
    await new Promise<void>((resolve, reject) =>
      socket.once('connect', () => resolve()).once('connect_error', reject),
    );
    const send = (frame: object) => socket.emit('message', frame);
    return { id, sender, send, close: () => socket.disconnect() };
  }
  if (kind === 'raw') {
    const path = `/api/room/${encodeURIComponent(room)}/ws?name=${encodeURIComponent(name)}`;
    return openWs(`ws://127.0.0.1:${port}${path}`, id, sender);
  }
  // The reference client's credential call (kept-alive node:http), then a plain socket: the hot
  // path stays this file's own.
  const token = await credentials(`http://127.0.0.1:${crowd.httpPort ?? port}`, room, name);
  const base = `http://127.0.0.1:${port}`;
  if (!web) return openWs(socketUrl(base, room, { token }), id, sender);
  const once = (await ticket(base, room, token)) ?? '';
  const conn = await openWs(socketUrl(base, room, { ticket: once }), id, sender);
  conn.send({ type: FrameType.History, count: HISTORY_REQUEST_COUNT });
  return conn;
}

interface Step {
  step: number;
  perSecond: number;
  durationMs: number;
  bodyBytes: number;
  /** Each sender on a fixed schedule, or Poisson arrivals seeded by `seed`, its id and the rate. */
  arrivals: Arrivals;
  seed: number;
}

/**
 * Sends each sender's share of the step's messages on a 10 ms tick, then answers what it sent.
 * Every arrival time up to now goes out: fixed, evenly spaced from the sender's random phase (so
 * senders never fire in lockstep bursts); Poisson, gaps seeded by the run's seed, its id and rate.
 */
function runStep(message: Step) {
  const { step, perSecond, durationMs, bodyBytes, arrivals, seed } = message;
  Object.assign(state, { step, received: 0, histogram: emptyHistogram(), errors: 0 });
  Object.assign(state, { cpuAtStep: process.cpuUsage(), wallAtStep: nowMs() });
  const gapMs = 1000 / perSecond;
  const senders = conns
    .filter((conn) => conn.sender)
    .map((conn) => {
      const seeded = seed * 100_003 + conn.id * 31 + perSecond;
      const gap = arrivals === 'fixed' ? () => gapMs : poissonGaps(gapMs, seeded);
      return { conn, gap, next: arrivals === 'fixed' ? gapMs * (1 - Math.random()) : gap() };
    });
  let n = 0;
  return new Promise<ReturnType<typeof counts> & { sent: number }>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = Math.min(nowMs() - state.wallAtStep, durationMs);
      for (const sender of senders) {
        for (const { conn } = sender; sender.next <= elapsed; sender.next += sender.gap()) {
          n += 1;
          const body = probeBody(step, n, bodyBytes);
          conn.send({ type: FrameType.Message, body, client_id: `c${conn.id}-${n}` });
        }
      }
      if (elapsed < durationMs) return;
      clearInterval(timer);
      resolve({ ...counts(), sent: n });
    }, 10);
  });
}

/** What was received since the step started, and this process's CPU and wall seconds meanwhile. */
function counts() {
  const cpu = process.cpuUsage(state.cpuAtStep);
  const { received, errors, closed } = state;
  const wallSeconds = (nowMs() - state.wallAtStep) / 1000;
  return { received, cpuSeconds: (cpu.user + cpu.system) / 1e6, wallSeconds, errors, closed };
}

/** What the parent (session.ts) asks, by type, and what each answers. */
const handlers = {
  /** Opens this client's share of the crowd: every `clients`-th connection from `index`. */
  connect: async (message: {
    kind: ServerId;
    crowd: Crowd;
    index: number;
    clients: number;
    web: boolean;
  }) => {
    const { kind, crowd, index, clients, web } = message;
    const ids = [];
    for (let id = index; id < crowd.connections; id += clients) ids.push(id);
    const { opened, tally } = await openAll(ids, CONNECT_CONCURRENCY, (id) =>
      connectOne(kind, crowd, id, web),
    );
    conns = opened;
    return tally;
  },
  step: runStep,
  /** Every connection sends a heartbeat each `periodMs`, the `total` of the crowd spread evenly. */
  heartbeat: ({ periodMs, total }: { periodMs: number; total: number }) => {
    for (const conn of conns) {
      const beat = () => conn.send({ type: FrameType.Heartbeat });
      const first = () => {
        beat();
        heartbeats.push(setInterval(beat, periodMs));
      };
      heartbeats.push(setTimeout(first, (periodMs * conn.id) / total));
    }
    return {};
  },
  /** The counts and latency histogram since step `step` started. */
  collect: ({ step }: { step: number }) => ({ step, histogram: state.histogram, ...counts() }),
  /**
   * Closes every connection on purpose (not counted as dropped) and stops the heartbeats, the
   * process staying up for more steps.
   */
  leave: (_: object) => {
    state.closing = true;
    for (const timer of heartbeats) clearTimeout(timer);
    for (const conn of conns) conn.close();
    conns = [];
    return {};
  },
};

export type Api = typeof handlers;
export type ParentMessage =
  { [K in keyof Api]: { type: K } & Parameters<Api[K]>[0] }[keyof Api] | { type: 'close' };
export type ClientMessage =
  | ChildLifecycle
  | { [K in keyof Api]: { type: K } & Omit<Awaited<ReturnType<Api[K]>>, 'type'> }[keyof Api];

/** Each handler's answer sent back under the request's own type. */
const answers = mapValues(handlers, (handler, type) => (message: ParentMessage) => {
  const reply = (handler as (message: ParentMessage) => unknown)(message);
  void Promise.resolve(reply).then((answer) => process.send?.({ ...(answer as object), type }));
});

serveParent<ParentMessage>({
  ...(answers as Omit<Handlers<ParentMessage>, 'close'>),
  close: () => {
    handlers.leave({});
    process.send?.({ type: 'closed' });
    setTimeout(() => process.exit(0), 200).unref();
  },
});
