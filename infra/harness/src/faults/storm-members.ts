/**
 * A member process of the reconnect storm: whole rooms of the reference `ChatMember`s (a ticket
 * per socket, the web client's reconnect policy, resume by `(epoch, seq)`, one message per key).
 * The first member of each room sends the room's messages. Everything the members saw goes back
 * to the parent for the lost/duplicate check. `STORM_MEASURE` names a module whose `measure`
 * hooks (the bench's) see the bystanders' messages and the phases.
 */
import { ChatMember } from '../client';
import { type Handlers, serveParent } from '../ipc-process';
import type {
  StormChildMessage,
  StormMeasure,
  StormParentMessage,
  StormPhase,
  StormRoom,
} from './storm-ipc';

const FIRST_CONNECT_TIMEOUT_MS = 60_000;

let measure: StormMeasure = {};
let phase: StormPhase = 'warm';
const bystanderMessages: Record<StormPhase, number> = { warm: 0, storm: 0, after: 0 };
let members: ChatMember[] = [];
let senders: ChatMember[] = [];
let traffic: NodeJS.Timeout | undefined;

function reply(message: StormChildMessage): void {
  process.send?.(message);
}

async function connectAll(baseUrl: string, rooms: StormRoom[], concurrency: number) {
  members = rooms.flatMap(({ room, names }) =>
    names.map((name) => {
      const member: ChatMember = new ChatMember(baseUrl, room, name, {
        onLive: (frame) => {
          if (member.stats.closes > 0) return;
          bystanderMessages[phase]++;
          measure.bystander?.(frame);
        },
      });
      return member;
    }),
  );
  senders = rooms.flatMap(({ room, names }) =>
    members.filter((member) => member.room === room && member.name === names[0]),
  );
  let next = 0;
  let ok = 0;
  let failed = 0;
  let firstError: string | null = null;
  const worker = async () => {
    for (let member = members[next++]; member; member = members[next++]) {
      try {
        await member.connect(FIRST_CONNECT_TIMEOUT_MS);
        ok++;
      } catch (error) {
        failed++;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  reply({ type: 'connected', ok, failed, firstError });
}

/** Each room's sender sends `perSecond` messages a second, at its own phase, on a 10 ms tick. */
function startTraffic(perSecond: number, bodyBytes: number): void {
  const started = performance.now();
  const offsets = senders.map(() => Math.random());
  const due = senders.map(() => 0);
  const body = (n: number, bytes: number) =>
    measure.body ? measure.body(n, bytes) : String(n).padEnd(bytes, '.');
  let sent = 0;
  traffic = setInterval(() => {
    const elapsed = performance.now() - started;
    senders.forEach((sender, index) => {
      const target = Math.floor((elapsed * perSecond) / 1000 + (offsets[index] ?? 0));
      for (; (due[index] ?? 0) < target; due[index] = (due[index] ?? 0) + 1) {
        sender.say(body(++sent, bodyBytes));
      }
    });
  }, 10);
}

const handlers: Handlers<StormParentMessage> = {
  connect: (message) => void connectAll(message.baseUrl, message.rooms, message.concurrency),
  traffic: (message) => startTraffic(message.messagesPerSecondPerRoom, message.bodyBytes),
  phase: (message) => {
    measure.phase?.(message.phase);
    phase = message.phase;
  },
  status: () =>
    reply({
      type: 'status',
      down: members.filter((member) => !member.live && !member.stats.gaveUp).length,
      everClosed: members.filter((member) => member.stats.closes > 0).length,
      gaveUp: members.filter((member) => member.stats.gaveUp).length,
    }),
  quiet: () => {
    clearInterval(traffic);
    reply({ type: 'quiet' });
  },
  report: () =>
    reply({
      type: 'report',
      members: members.map((member) => member.report()),
      bystanderMessages,
      measured: measure.report?.(),
    }),
  close: () => {
    clearInterval(traffic);
    for (const member of members) member.close(true);
    reply({ type: 'closed' });
    setTimeout(() => process.exit(0), 200).unref();
  },
};

const measureModule = process.env.STORM_MEASURE;
void (measureModule ? import(measureModule) : Promise.resolve({}))
  .then((loaded: { measure?: StormMeasure }) => (measure = loaded.measure ?? {}))
  .then(() => serveParent<StormParentMessage>(handlers));
