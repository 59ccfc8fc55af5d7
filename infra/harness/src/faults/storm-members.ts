/**
 * A member process of the reconnect storm (storm.ts): whole rooms of the reference `ChatMember`s,
 * the first of each sending the room's messages with a latency probe. What they saw goes back to
 * the parent, with the bystanders' latency and this process's event-loop delay per phase.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ChatMember } from '../client/chat-member';
import { type ChildLifecycle, type Handlers, openAll, serveParent } from '../ipc-process';
import { emptyHistogram, probeBody, recordProbe } from '../probe';

// Messages between the storm (parent) and this process; the answers' types follow from the code.

export interface StormRoom {
  room: string;
  /** Member names; the first one sends the room's messages. */
  names: string[];
}

/** `warm`: before the kill; `storm`: from the kill until every member has resumed; `after`. */
export type StormPhase = 'warm' | 'storm' | 'after';

export type StormParentMessage =
  | { type: 'connect'; baseUrl: string; rooms: StormRoom[]; concurrency: number }
  | { type: 'traffic'; messagesPerSecondPerRoom: number; bodyBytes: number }
  | { type: 'phase'; phase: StormPhase }
  | { type: 'status' }
  | { type: 'quiet' }
  | { type: 'report' }
  | { type: 'close' };

export type StormChildMessage =
  ChildLifecycle | ReturnType<typeof status> | { type: 'quiet' } | ReturnType<typeof report>;

const FIRST_CONNECT_TIMEOUT_MS = 60_000;

let phase: StormPhase = 'warm';
const bystanders = { warm: emptyHistogram(), storm: emptyHistogram(), after: emptyHistogram() };
const noDelay = () => ({ p99Ms: 0, maxMs: 0 });
const eventLoop = { warm: noDelay(), storm: noDelay(), after: noDelay() };
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
let members: ChatMember[] = [];
let senders: ChatMember[] = [];
let traffic: NodeJS.Timeout | undefined;

function reply(message: StormChildMessage): void {
  process.send?.(message);
}

/** Closes the current phase's event-loop figures and starts the next phase's. */
function enterPhase(next: StormPhase): void {
  eventLoop[phase] = { p99Ms: delay.percentile(99) / 1e6, maxMs: delay.max / 1e6 };
  delay.reset();
  phase = next;
}

async function connectAll(baseUrl: string, rooms: StormRoom[], concurrency: number) {
  const byRoom = rooms.map(({ room, names }) =>
    names.map((name) => {
      const member: ChatMember = new ChatMember(baseUrl, room, name, {
        onLive: (frame) => {
          if (member.stats.closes === 0) recordProbe(bystanders[phase], frame.body);
        },
      });
      return member;
    }),
  );
  members = byRoom.flat();
  senders = byRoom.flatMap((room) => room.slice(0, 1));
  const { tally } = await openAll(members, concurrency, (member) =>
    member.connect(FIRST_CONNECT_TIMEOUT_MS),
  );
  reply(tally);
}

/** Each room's sender sends `perSecond` messages a second, at its own phase, on a 10 ms tick. */
function startTraffic(perSecond: number, bodyBytes: number): void {
  const started = performance.now();
  const paced = senders.map((sender) => ({ sender, offset: Math.random(), due: 0 }));
  let sent = 0;
  traffic = setInterval(() => {
    const elapsed = performance.now() - started;
    for (const each of paced) {
      const target = Math.floor((elapsed * perSecond) / 1000 + each.offset);
      for (; each.due < target; each.due++) each.sender.say(probeBody(0, ++sent, bodyBytes));
    }
  }, 10);
}

const status = () => ({
  type: 'status' as const,
  /** Members whose socket is not open and caught up. */
  down: members.filter((member) => !member.live && !member.stats.gaveUp).length,
  everClosed: members.filter((member) => member.stats.closes > 0).length,
  gaveUp: members.filter((member) => member.stats.gaveUp).length,
});

/**
 * What the members saw; the latency of the live messages to members never disconnected
 * (bystanders), and this process's own event-loop delay (its share of the latency), by phase.
 */
function report() {
  enterPhase(phase);
  const seen = members.map((member) => member.report());
  return { type: 'report' as const, members: seen, bystanders, eventLoop };
}

const handlers: Handlers<StormParentMessage> = {
  connect: (message) => void connectAll(message.baseUrl, message.rooms, message.concurrency),
  traffic: (message) => startTraffic(message.messagesPerSecondPerRoom, message.bodyBytes),
  phase: (message) => enterPhase(message.phase),
  status: () => reply(status()),
  quiet: () => {
    clearInterval(traffic);
    reply({ type: 'quiet' });
  },
  report: () => reply(report()),
  close: () => {
    clearInterval(traffic);
    for (const member of members) member.close(true);
    reply({ type: 'closed' });
    setTimeout(() => process.exit(0), 200).unref();
  },
};

serveParent<StormParentMessage>(handlers);
