/**
 * A client process of the reconnect-storm scenario: it runs whole rooms of members that behave
 * like the web client where recovery matters. Each member keeps its token, opens every socket
 * with a fresh single-use ticket, reconnects by protocol's `decideReconnect` with the web client's
 * own policy (5 s ± 20 % after a dropped connection), asks for history after its last
 * `(epoch, seq)` until caught up, and keeps its list keyed by `(epoch, seq)` as the web client's
 * store does. The first member of each room sends the room's messages. Everything it saw goes back
 * to the parent for the lost/duplicate check.
 */
import {
  ApiPath,
  decideReconnect,
  DEFAULT_RECONNECT_POLICY,
  decodeServerFrame,
  FrameType,
  HISTORY_REQUEST_COUNT,
  type ServerFrame,
} from '@taco/protocol';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import WebSocket from 'ws';
import { emptyHistogram, record } from '../histogram';
import { nowMs, probeBody, readProbe } from '../probe';
import { credentials, ticket } from './common';
import type {
  MemberReport,
  StormClientMessage,
  StormParentMessage,
  StormPhase,
  StormRoom,
} from './storm-ipc';

const FIRST_CONNECT_TIMEOUT_MS = 60_000;

let phase: StormPhase = 'warm';
const bystanders: Record<StormPhase, number[]> = {
  warm: emptyHistogram(),
  storm: emptyHistogram(),
  after: emptyHistogram(),
};

const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
const eventLoop: Record<StormPhase, { p99Ms: number; maxMs: number }> = {
  warm: { p99Ms: 0, maxMs: 0 },
  storm: { p99Ms: 0, maxMs: 0 },
  after: { p99Ms: 0, maxMs: 0 },
};

/** Closes the current phase's event-loop figures and starts the next phase's. */
function enterPhase(next: StormPhase): void {
  eventLoop[phase] = { p99Ms: delay.percentile(99) / 1e6, maxMs: delay.max / 1e6 };
  delay.reset();
  phase = next;
}

function reply(message: StormClientMessage): void {
  process.send?.(message);
}

class Member {
  private token: string | null = null;
  private socket: WebSocket | null = null;
  private lastSeq: number | null = null;
  private epoch: string | null = null;
  private attempts = 0;
  private closedAt: number | null = null;
  private stopped = false;
  private sent = 0;
  private readonly pending = new Map<string, string>();
  private readonly list = new Map<string, [string, number, string, string]>();
  private readonly acked: [string, number, string][] = [];
  private conflicts = 0;
  private repeatedFrames = 0;
  private closes = 0;
  private reconnects = 0;
  private credentialCalls = 0;
  private ticketCalls = 0;
  private readonly resumedAt: number[] = [];
  private gaveUp = false;
  /** The socket is open and history has caught up. */
  live = false;
  private firstReady: (() => void) | undefined;
  readonly ready = new Promise<void>((resolve) => (this.firstReady = resolve));

  constructor(
    private readonly baseUrl: string,
    readonly room: string,
    readonly name: string,
  ) {}

  get everClosed(): boolean {
    return this.closes > 0;
  }

  get hasGivenUp(): boolean {
    return this.gaveUp;
  }

  async connect(): Promise<void> {
    try {
      if (this.token === null) {
        this.credentialCalls++;
        this.token = await credentials(this.baseUrl, this.room, this.name);
      }
      this.ticketCalls++;
      const single = await ticket(this.baseUrl, this.room, this.token);
      if (single === null) {
        this.closed(4401);
        return;
      }
      this.open(
        `${this.baseUrl.replace(/^http/, 'ws')}${ApiPath.roomSocketWithTicket(this.room, single)}`,
      );
    } catch {
      // No replica answered the HTTP call: a failed attempt, like a dropped socket.
      this.closed(1006);
    }
  }

  private open(url: string): void {
    const socket = new WebSocket(url, { perMessageDeflate: false });
    this.socket = socket;
    let opened = false;
    socket.on('open', () => {
      opened = true;
      this.attempts = 0;
      this.requestHistory();
    });
    socket.on('message', (data: Buffer) => {
      const decoded = decodeServerFrame(data.toString('utf8'));
      if (decoded.ok) this.frame(decoded.frame);
    });
    socket.on('error', () => undefined);
    socket.on('close', (code) => {
      if (this.socket === socket) this.socket = null;
      if (opened) {
        this.closes++;
        this.closedAt ??= Date.now();
      }
      this.closed(code);
    });
  }

  private requestHistory(): void {
    const frame =
      this.lastSeq === null
        ? { type: FrameType.History, count: HISTORY_REQUEST_COUNT }
        : {
            type: FrameType.History,
            count: HISTORY_REQUEST_COUNT,
            after: this.lastSeq,
            ...(this.epoch === null ? {} : { epoch: this.epoch }),
          };
    this.socket?.send(JSON.stringify(frame));
  }

  private frame(frame: ServerFrame): void {
    if (frame.type !== FrameType.Message) return;
    if ('messages' in frame) {
      const resuming = this.lastSeq !== null;
      for (const message of frame.messages) {
        this.keep(frame.epoch, message.seq, message.sender, message.body);
      }
      if (resuming && frame.messages.length >= HISTORY_REQUEST_COUNT) {
        this.requestHistory();
        return;
      }
      this.live = true;
      if (this.closedAt !== null) {
        this.resumedAt.push(Date.now());
        this.closedAt = null;
      }
      this.firstReady?.();
      this.firstReady = undefined;
      return;
    }
    this.keep(frame.epoch, frame.seq, frame.sender, frame.body);
    if (frame.sender === this.name && frame.client_id !== undefined) {
      const body = this.pending.get(frame.client_id);
      if (body !== undefined) {
        this.pending.delete(frame.client_id);
        this.acked.push([frame.epoch, frame.seq, body]);
      }
    }
    if (this.closes === 0) {
      const probe = readProbe(frame.body);
      if (probe) record(bystanders[phase], nowMs() - probe.t);
    }
  }

  private keep(epoch: string, seq: number, sender: string, body: string): void {
    const key = `${epoch}|${seq}`;
    const held = this.list.get(key);
    if (held) {
      if (held[2] === sender && held[3] === body) this.repeatedFrames++;
      else this.conflicts++;
      return;
    }
    this.list.set(key, [epoch, seq, sender, body]);
    if (epoch !== this.epoch) {
      this.epoch = epoch;
      this.lastSeq = seq;
    } else if (this.lastSeq === null || seq > this.lastSeq) {
      this.lastSeq = seq;
    }
  }

  private closed(code: number): void {
    this.live = false;
    if (this.stopped) return;
    const decision = decideReconnect(code, this.attempts, Math.random);
    if (decision.action === 'stop') {
      this.gaveUp = true;
      return;
    }
    if (decision.action === 'reauthenticate') {
      // New credentials, at once; counted as an attempt, so a server that keeps refusing them
      // is given up on like any other.
      if (++this.attempts > DEFAULT_RECONNECT_POLICY.attempts) {
        this.gaveUp = true;
        return;
      }
      this.token = null;
      this.reconnects++;
      void this.connect();
      return;
    }
    this.attempts = decision.attempt;
    this.reconnects++;
    setTimeout(() => {
      if (!this.stopped) void this.connect();
    }, decision.delayMs);
  }

  /** Sends one message if the member is live; it counts once its echo comes back. */
  say(bodyBytes: number): void {
    if (!this.live || !this.socket || this.socket.readyState !== WebSocket.OPEN) return;
    const clientId = `${this.name}-${++this.sent}`;
    const body = probeBody(0, this.sent, bodyBytes);
    this.pending.set(clientId, body);
    this.socket.send(JSON.stringify({ type: FrameType.Message, body, client_id: clientId }));
  }

  report(): MemberReport {
    return {
      room: this.room,
      name: this.name,
      list: [...this.list.values()],
      acked: this.acked,
      unacknowledged: [...this.pending.values()],
      conflicts: this.conflicts,
      repeatedFrames: this.repeatedFrames,
      closes: this.closes,
      reconnects: this.reconnects,
      credentialCalls: this.credentialCalls,
      ticketCalls: this.ticketCalls,
      resumedAt: this.resumedAt,
      gaveUp: this.gaveUp,
    };
  }

  stop(): void {
    this.stopped = true;
    this.socket?.terminate();
  }
}

let members: Member[] = [];
let senders: Member[] = [];
let traffic: NodeJS.Timeout | undefined;

async function connectAll(baseUrl: string, rooms: StormRoom[], concurrency: number) {
  members = rooms.flatMap(({ room, names }) =>
    names.map((name) => new Member(baseUrl, room, name)),
  );
  senders = rooms.flatMap(({ room, names }) =>
    members.filter((member) => member.room === room && member.name === names[0]),
  );
  let next = 0;
  let ok = 0;
  let failed = 0;
  let firstError: string | null = null;
  const worker = async () => {
    while (next < members.length) {
      const member = members[next++];
      if (!member) break;
      void member.connect();
      const timeout = new Promise<false>((resolve) =>
        setTimeout(() => resolve(false), FIRST_CONNECT_TIMEOUT_MS).unref(),
      );
      if (await Promise.race([member.ready.then(() => true), timeout])) {
        ok++;
      } else {
        failed++;
        firstError ??= `${member.name} in ${member.room} was not live within ${FIRST_CONNECT_TIMEOUT_MS} ms`;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  reply({ type: 'connected', ok, failed, firstError });
}

/** Each room's sender sends `perSecond` messages a second, at its own phase, on a 10 ms tick. */
function startTraffic(perSecond: number, bodyBytes: number): void {
  const started = nowMs();
  const offsets = senders.map(() => Math.random());
  const due = senders.map(() => 0);
  traffic = setInterval(() => {
    const elapsed = nowMs() - started;
    senders.forEach((sender, index) => {
      const target = Math.floor((elapsed * perSecond) / 1000 + (offsets[index] ?? 0));
      for (; (due[index] ?? 0) < target; due[index] = (due[index] ?? 0) + 1) sender.say(bodyBytes);
    });
  }, 10);
}

process.on('message', (message: StormParentMessage) => {
  switch (message.type) {
    case 'connect':
      void connectAll(message.baseUrl, message.rooms, message.concurrency);
      break;
    case 'traffic':
      startTraffic(message.messagesPerSecondPerRoom, message.bodyBytes);
      break;
    case 'phase':
      enterPhase(message.phase);
      break;
    case 'status':
      reply({
        type: 'status',
        down: members.filter((member) => !member.live && !member.hasGivenUp).length,
        everClosed: members.filter((member) => member.everClosed).length,
        gaveUp: members.filter((member) => member.hasGivenUp).length,
      });
      break;
    case 'quiet':
      clearInterval(traffic);
      reply({ type: 'quiet' });
      break;
    case 'report':
      enterPhase(phase);
      reply({
        type: 'report',
        members: members.map((member) => member.report()),
        bystanders,
        eventLoop,
      });
      break;
    case 'close':
      clearInterval(traffic);
      for (const member of members) member.stop();
      reply({ type: 'closed' });
      setTimeout(() => process.exit(0), 200).unref();
      break;
  }
});

process.on('disconnect', () => process.exit(0));
reply({ type: 'ready' });
