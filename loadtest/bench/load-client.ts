/**
 * A load-client process: owns a slice of a workload's connections, sends the messages the parent
 * plans, and reports per-message send→receive latency, counts and its own CPU over IPC. Every
 * timer is bounded by the step it serves; the process exits when the parent says so or goes away.
 */
import {
  credentials,
  emptyHistogram,
  nowMs,
  openAll,
  probeBody,
  readProbe,
  record,
  serveParent,
  socketUrl,
} from '@taco/harness';
import { FrameType } from '@taco/protocol';
import { io, type Socket } from 'socket.io-client';
import WebSocket from 'ws';
import type { ClientKind, ClientMessage, ConnSpec, ParentMessage, SenderPlan } from './ipc';

const MESSAGE = FrameType.Message;
const CONNECT_TIMEOUT_MS = 30_000;

interface ChatFrame {
  type?: unknown;
  body?: unknown;
}

interface Conn {
  spec: ConnSpec;
  send(frame: string | object): void;
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

function reply(message: ClientMessage): void {
  process.send?.(message);
}

function onFrame(frame: ChatFrame): void {
  if (frame.type === FrameType.Error) {
    state.errors += 1;
    return;
  }
  if (frame.type !== MESSAGE) return;
  const probe = readProbe(frame.body);
  if (probe === null || probe.s !== state.step) return;
  state.received += 1;
  record(state.histogram, nowMs() - probe.t);
}

function onText(data: WebSocket.RawData): void {
  try {
    // Text frames arrive as one Buffer (binaryType 'nodebuffer', the default).
    onFrame(JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : '') as ChatFrame);
  } catch {
    state.errors += 1;
  }
}

function onClose(): void {
  if (!state.closing) state.closed += 1;
}

function openWs(url: string, spec: ConnSpec): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, {
      perMessageDeflate: false,
      handshakeTimeout: CONNECT_TIMEOUT_MS,
    });
    ws.once('open', () => {
      ws.on('message', onText);
      ws.on('close', onClose);
      resolve({
        spec,
        send: (frame) => ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame)),
        close: () => ws.terminate(),
      });
    });
    ws.once('error', reject);
  });
}

function openSocketIo(spec: ConnSpec): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const socket: Socket = io(`http://127.0.0.1:${spec.port}`, {
      transports: ['websocket'],
      forceNew: true,
      reconnection: false,
      timeout: CONNECT_TIMEOUT_MS,
      query: { room: spec.room, name: spec.name },
    });
    socket.once('connect', () => {
      socket.on('message', (frame: ChatFrame) => onFrame(frame));
      socket.on('disconnect', onClose);
      resolve({
        spec,
        send: (frame) =>
          socket.emit('message', typeof frame === 'string' ? JSON.parse(frame) : frame),
        close: () => socket.disconnect(),
      });
    });
    socket.once('connect_error', reject);
  });
}

async function connectOne(kind: ClientKind, spec: ConnSpec): Promise<Conn> {
  const path = `/api/room/${encodeURIComponent(spec.room)}/ws`;
  switch (kind) {
    case 'taco': {
      // The reference client's credential call (kept-alive node:http), then a plain socket: the
      // hot path stays this file's own.
      const token = await credentials(
        `http://127.0.0.1:${spec.httpPort ?? spec.port}`,
        spec.room,
        spec.name,
      );
      return openWs(socketUrl(`http://127.0.0.1:${spec.port}`, spec.room, { token }), spec);
    }
    case 'raw':
      return openWs(
        `ws://127.0.0.1:${spec.port}${path}?name=${encodeURIComponent(spec.name)}`,
        spec,
      );
    case 'socketio':
      return openSocketIo(spec);
  }
}

let conns: Conn[] = [];

async function connectAll(kind: ClientKind, specs: ConnSpec[], concurrency: number): Promise<void> {
  const { opened, tally } = await openAll(specs, concurrency, (spec) => connectOne(kind, spec));
  conns = opened;
  reply(tally);
}

/** Sends each sender's share of the step's messages on a 10 ms tick, then reports what it sent. */
function runStep(step: number, senders: SenderPlan[], durationMs: number, bodyBytes: number): void {
  state.step = step;
  state.received = 0;
  state.histogram = emptyHistogram();
  state.errors = 0;
  state.cpuAtStep = process.cpuUsage();
  state.wallAtStep = nowMs();
  const sent = new Array<number>(senders.length).fill(0);
  // Each sender starts at its own random phase, so senders never fire in lockstep bursts.
  const phase = senders.map(() => Math.random());
  const sentByRoom: Record<string, number> = {};
  const started = nowMs();
  let n = 0;
  const tick = () => {
    const elapsed = Math.min(nowMs() - started, durationMs);
    for (let i = 0; i < senders.length; i += 1) {
      const plan = senders[i];
      const conn = plan ? conns[plan.conn] : undefined;
      if (!plan || !conn) continue;
      const due = Math.floor((plan.perSecond * elapsed) / 1000 + (phase[i] ?? 0)) - (sent[i] ?? 0);
      for (let k = 0; k < due; k += 1) {
        n += 1;
        conn.send({
          type: MESSAGE,
          body: probeBody(step, n, bodyBytes),
          client_id: `c${conn.spec.id}-${n}`,
        });
        sentByRoom[conn.spec.room] = (sentByRoom[conn.spec.room] ?? 0) + 1;
      }
      sent[i] = (sent[i] ?? 0) + Math.max(0, due);
    }
    if (elapsed >= durationMs) {
      clearInterval(timer);
      reply({ type: 'sent', step, sentByRoom, ...sinceStep() });
    }
  };
  const timer = setInterval(tick, 10);
}

/** This process's CPU seconds and the wall seconds since the step started. */
function sinceStep() {
  const cpu = process.cpuUsage(state.cpuAtStep);
  return {
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    wallSeconds: (nowMs() - state.wallAtStep) / 1000,
  };
}

function collect(step: number): void {
  reply({
    type: 'stats',
    step,
    received: state.received,
    histogram: state.histogram,
    ...sinceStep(),
    errors: state.errors,
    closed: state.closed,
  });
}

function shutdown(): void {
  state.closing = true;
  for (const conn of conns) conn.close();
  conns = [];
  reply({ type: 'closed' });
  setTimeout(() => process.exit(0), 200).unref();
}

serveParent<ParentMessage>({
  connect: (message) => void connectAll(message.kind, message.conns, message.concurrency),
  step: (message) => runStep(message.step, message.senders, message.durationMs, message.bodyBytes),
  peek: () => reply({ type: 'count', received: state.received }),
  collect: (message) => collect(message.step),
  close: shutdown,
});
