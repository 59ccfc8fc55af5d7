/**
 * `npm run bench -- --only storm`: a reconnect storm. Two replicas behind nginx share Redis;
 * `--clients` members (2,000 by default) in rooms of 5–50 connect through nginx like the web client
 * (credentials once, a ticket per socket) and each room's first member sends messages. After a
 * warm-up, one replica is killed with SIGKILL while messages flow: its members reconnect with the
 * web client's policy (5 s ± 20 %), through nginx to the survivor, and resume from their last
 * `(epoch, seq)`.
 *
 * Reports: time from the kill until every member is back and resumed; bystanders' (members of the
 * surviving replica, never disconnected) p50/p99 before and during the storm; messages lost
 * (an acknowledged message missing from a member's list) and shown twice (a list key holding two
 * different messages); credential and ticket calls per reconnect; Redis commands per reconnect
 * (INFO commandstats over the storm, less the same time's worth of the warm-up's steady traffic).
 * Exits non-zero when a message was lost or doubled, or a member never came back.
 *
 *   npm run bench -- --only storm [--clients 2000] [--rate 0.5] [--warmup 8] [--processes 2]
 *                    [--body 200] [--out file.json]
 */
import { type ChildProcess, fork } from 'node:child_process';
import { setPriority } from 'node:os';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import Redis from 'ioredis';
import { startCluster } from '@taco/harness';
import { emptyHistogram, merge, quantile } from '../histogram';
import { machine } from '../report';
import {
  commandStats,
  intOption,
  log,
  median,
  metricValue,
  round,
  SCENARIO_ENV,
  writeReport,
} from './common';
import type {
  MemberReport,
  StormClientMessage,
  StormParentMessage,
  StormPhase,
  StormRoom,
} from './storm-ipc';

const CLIENT_SCRIPT = resolve(__dirname, 'storm-client.ts');
const REPLY_TIMEOUT_MS = 180_000;
const STORM_LIMIT_MS = 90_000;
const POLL_MS = 100;
const DRAIN_MS = 3000;
const LAG_POLL_MS = 500;
const ROOM_MIN = 5;
const ROOM_MAX = 50;
/**
 * The probe: rooms of members of its own, in a process of its own that never reconnects, all
 * connected straight to the survivor, sending often enough for a p99 of their own.
 */
const PROBE_ROOMS = 8;
const PROBE_ROOM_SIZE = 5;
const PROBE_MESSAGES_PER_SECOND = 4;
/** The probe process's nice value: ahead of the load clients, as a client on its own machine. */
const PROBE_NICE = -5;

type Reply<T extends StormClientMessage['type']> = Extract<StormClientMessage, { type: T }>;

/** One client process and typed request/response over its IPC channel. */
class StormProcess {
  private readonly child: ChildProcess;
  private readonly waiters = new Map<
    string,
    { resolve: (message: StormClientMessage) => void; reject: (error: Error) => void }
  >();
  readonly ready: Promise<unknown>;

  constructor(readonly index: number) {
    this.child = fork(CLIENT_SCRIPT, [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (message: StormClientMessage) => {
      const waiter = this.waiters.get(message.type);
      this.waiters.delete(message.type);
      waiter?.resolve(message);
    });
    this.child.once('exit', () => {
      for (const waiter of this.waiters.values()) {
        waiter.reject(new Error(`storm client ${this.index} exited`));
      }
      this.waiters.clear();
    });
    this.ready = this.wait('ready');
  }

  private wait<T extends StormClientMessage['type']>(type: T): Promise<Reply<T>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(type);
        reject(new Error(`storm client ${this.index}: no ${type} within ${REPLY_TIMEOUT_MS} ms`));
      }, REPLY_TIMEOUT_MS);
      this.waiters.set(type, {
        resolve: (message) => {
          clearTimeout(timer);
          resolve(message as Reply<T>);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
    });
  }

  tell(message: StormParentMessage): void {
    this.child.send(message);
  }

  request<T extends StormClientMessage['type']>(
    message: StormParentMessage,
    answer: T,
  ): Promise<Reply<T>> {
    const reply = this.wait(answer);
    this.child.send(message);
    return reply;
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  /** Sets the process's nice value; false when the system refused it. */
  prioritize(nice: number): boolean {
    if (this.child.pid === undefined) return false;
    try {
      setPriority(this.child.pid, nice);
      return true;
    } catch {
      return false;
    }
  }
}

/** Rooms of 5–50 members, `clients` members in all, spread over sizes deterministically. */
export function planRooms(clients: number, run: string): StormRoom[] {
  const rooms: StormRoom[] = [];
  let left = clients;
  for (let i = 0; left > 0; i++) {
    let size = ROOM_MIN + ((i * 37) % (ROOM_MAX - ROOM_MIN + 1));
    if (left - size < ROOM_MIN) size = left <= ROOM_MAX ? left : left - ROOM_MIN;
    const room = `storm-${run}-${i}`;
    rooms.push({ room, names: Array.from({ length: size }, (_, k) => `member ${k}`) });
    left -= size;
  }
  return rooms;
}

/** The probe's rooms (see `PROBE_ROOMS`). */
function probeRooms(run: string): StormRoom[] {
  return Array.from({ length: PROBE_ROOMS }, (_, i) => ({
    room: `storm-${run}-probe-${i}`,
    names: Array.from({ length: PROBE_ROOM_SIZE }, (_, k) => `probe ${k}`),
  }));
}

function delta(after: Map<string, number>, before: Map<string, number>): Map<string, number> {
  const result = new Map<string, number>();
  for (const [command, calls] of after) result.set(command, calls - (before.get(command) ?? 0));
  return result;
}

const sum = (values: Iterable<number>) => [...values].reduce((total, value) => total + value, 0);

/** Lost and doubled messages: every member's list against every acknowledged message of its room. */
export function checkLists(members: MemberReport[]): {
  acknowledged: number;
  lost: number;
  conflicts: number;
  membersMissingSome: number;
} {
  const ackedByRoom = new Map<string, Map<string, string>>();
  for (const member of members) {
    const acked = ackedByRoom.get(member.room) ?? new Map<string, string>();
    ackedByRoom.set(member.room, acked);
    for (const [epoch, seq, body] of member.acked) acked.set(`${epoch}|${seq}`, body);
  }
  let lost = 0;
  let membersMissingSome = 0;
  for (const member of members) {
    const list = new Map(member.list.map(([epoch, seq, , body]) => [`${epoch}|${seq}`, body]));
    let missing = 0;
    for (const [key, body] of ackedByRoom.get(member.room) ?? []) {
      if (list.get(key) !== body) missing++;
    }
    lost += missing;
    if (missing > 0) membersMissingSome++;
  }
  return {
    acknowledged: sum([...ackedByRoom.values()].map((acked) => acked.size)),
    lost,
    conflicts: sum(members.map((member) => member.conflicts)),
    membersMissingSome,
  };
}

export interface StormSettings {
  clients: number;
  /** Messages per second each room's sender sends. */
  rate: number;
  warmupSeconds: number;
  /** Client processes the members are spread over (whole rooms each). */
  processes: number;
  bodyBytes: number;
}

export async function runStorm(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      only: { type: 'string' },
      clients: { type: 'string' },
      rate: { type: 'string' },
      warmup: { type: 'string' },
      processes: { type: 'string' },
      body: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const rate = Number(values.rate ?? 0.5);
  if (!(rate > 0 && rate <= 50))
    throw new Error(`--rate must be above 0 and at most 50 (got "${values.rate}")`);
  const report = await stormScenario({
    clients: intOption('clients', values.clients, 2000, ROOM_MIN, 20_000),
    rate,
    warmupSeconds: intOption('warmup', values.warmup, 8, 2, 300),
    processes: intOption('processes', values.processes, 2, 1, 8),
    bodyBytes: intOption('body', values.body, 200, 50, 4000),
  });
  log(`JSON: ${writeReport('storm', values.out, report)}`);
  if (report.everyoneBackSeconds === null) throw new Error('storm: not every client came back');
  if (report.lost > 0 || report.shownTwice > 0) {
    throw new Error('storm: messages were lost or shown twice');
  }
}

export type StormReport = Awaited<ReturnType<typeof stormScenario>>;

/** Runs the storm (see the file's comment) and returns its figures. */
export async function stormScenario(settings: StormSettings) {
  const { clients, rate, warmupSeconds, bodyBytes } = settings;
  const processCount = settings.processes;
  const started = Date.now();
  const run = String(started % 1_000_000);
  const rooms = planRooms(clients, run);
  log(
    `== Reconnect storm: ${clients} clients in ${rooms.length} rooms of ${ROOM_MIN}–${ROOM_MAX}, ` +
      `${rate} msg/s per room, one of 2 replicas killed with SIGKILL`,
  );

  const cluster = await startCluster({ replicas: 2, env: SCENARIO_ENV, output: 'quiet' });
  const processes = Array.from({ length: processCount }, (_, index) => new StormProcess(index));
  const probe = new StormProcess(processCount);
  const everyProcess = [...processes, probe];
  const redis = new Redis(cluster.redis?.url ?? '', { lazyConnect: true, maxRetriesPerRequest: 1 });
  // Polling the survivor's event loop, from the kill until everyone is back (or a failure).
  let watching = false;
  try {
    await redis.connect();
    await Promise.all(everyProcess.map((client) => client.ready));
    const probeAhead = probe.prioritize(PROBE_NICE);
    const connectStarted = Date.now();
    const connected = await Promise.all(
      processes.map((client) =>
        client.request(
          {
            type: 'connect',
            baseUrl: cluster.url,
            rooms: rooms.filter((_, index) => index % processCount === client.index),
            concurrency: 32,
          },
          'connected',
        ),
      ),
    );
    const failed = sum(connected.map((answer) => answer.failed));
    log(
      `  connected ${clients - failed}/${clients} in ${((Date.now() - connectStarted) / 1000).toFixed(1)} s`,
    );
    if (failed > 0)
      throw new Error(
        `${failed} clients did not connect: ${connected.find((answer) => answer.firstError)?.firstError}`,
      );

    const survivor = cluster.replicas[1];
    const victim = cluster.replicas[0];
    if (!victim || !survivor) throw new Error('no replica to kill');
    const probed = await probe.request(
      { type: 'connect', baseUrl: survivor.url, rooms: probeRooms(run), concurrency: 8 },
      'connected',
    );
    if (probed.failed > 0) throw new Error(`the probe did not connect: ${probed.firstError}`);

    for (const client of processes) {
      client.tell({ type: 'traffic', messagesPerSecondPerRoom: rate, bodyBytes });
    }
    probe.tell({ type: 'traffic', messagesPerSecondPerRoom: PROBE_MESSAGES_PER_SECOND, bodyBytes });
    const phase = (value: StormPhase) => {
      for (const client of everyProcess) client.tell({ type: 'phase', phase: value });
    };
    // Warm-up: the steady traffic's Redis commands per second, to subtract from the storm's.
    await sleep(1000);
    const warmStats = await commandStats(redis);
    const warmStarted = Date.now();
    await sleep(warmupSeconds * 1000);
    const killStats = await commandStats(redis);
    const warmSeconds = (Date.now() - warmStarted) / 1000;

    // The survivor's worst event-loop delay, each poll (prom-client resets it per scrape).
    let survivorLagMs = 0;
    watching = true;
    const watchLag = (async () => {
      while (watching) {
        const lag = await metricValue(survivor.url, 'nodejs_eventloop_lag_max_seconds').catch(
          () => 0,
        );
        survivorLagMs = Math.max(survivorLagMs, lag * 1000);
        await sleep(LAG_POLL_MS);
      }
    })();
    phase('storm');
    const killedAt = Date.now();
    victim.kill('SIGKILL');
    log(`  killed ${victim.id} (SIGKILL)`);
    let everClosed = 0;
    let down = 0;
    let gaveUp = 0;
    let backAt: number | null = null;
    while (Date.now() - killedAt < STORM_LIMIT_MS) {
      await sleep(POLL_MS);
      const status = await Promise.all(
        everyProcess.map((client) => client.request({ type: 'status' }, 'status')),
      );
      everClosed = sum(status.map((answer) => answer.everClosed));
      down = sum(status.map((answer) => answer.down));
      gaveUp = sum(status.map((answer) => answer.gaveUp));
      if (everClosed > 0 && down === 0) {
        backAt = Date.now();
        break;
      }
    }
    const stormStats = await commandStats(redis);
    watching = false;
    await watchLag;
    const stormSeconds = ((backAt ?? Date.now()) - killedAt) / 1000;
    phase('after');
    log(
      backAt === null
        ? `  not everyone came back within ${STORM_LIMIT_MS / 1000} s: ${down} still down, ${gaveUp} gave up`
        : `  all ${everClosed} disconnected clients back and resumed ${stormSeconds.toFixed(1)} s after the kill`,
    );
    await sleep(2000);
    await Promise.all(everyProcess.map((client) => client.request({ type: 'quiet' }, 'quiet')));
    await sleep(DRAIN_MS);
    const reports = await Promise.all(
      processes.map((client) => client.request({ type: 'report' }, 'report')),
    );
    const probeReport = await probe.request({ type: 'report' }, 'report');

    const loadMembers = reports.flatMap((answer) => answer.members);
    const members = [...loadMembers, ...probeReport.members];
    const histograms: Record<StormPhase, number[]> = {
      warm: emptyHistogram(),
      storm: emptyHistogram(),
      after: emptyHistogram(),
    };
    for (const answer of reports) {
      for (const key of ['warm', 'storm', 'after'] as const)
        merge(histograms[key], answer.bystanders[key]);
    }
    const check = checkLists(members);
    const reconnected = members.filter((member) => member.closes > 0);
    const reconnects = sum(reconnected.map((member) => member.resumedAt.length));
    const attempts = sum(reconnected.map((member) => member.reconnects));
    const resumeMs = reconnected.map(
      (member) => (member.resumedAt.at(-1) ?? Date.now()) - killedAt,
    );
    // Steady traffic's share of the storm's commands, from the warm-up's rate.
    const steady = delta(killStats, warmStats);
    const storm = delta(stormStats, killStats);
    const perReconnect = new Map<string, number>();
    for (const [command, calls] of storm) {
      const extra = calls - ((steady.get(command) ?? 0) * stormSeconds) / warmSeconds;
      if (reconnects > 0 && extra / reconnects >= 0.05) {
        perReconnect.set(command, round(extra / reconnects, 2) ?? 0);
      }
    }
    const p = (histogram: number[], q: number) => round(quantile(histogram, q), 1);
    const report = {
      scenario: 'storm',
      date: new Date().toISOString(),
      machine: machine(),
      settings: {
        clients,
        rooms: rooms.length,
        rate,
        warmupSeconds,
        processes: processCount,
        bodyBytes,
      },
      killed: victim.id,
      disconnected: reconnected.length,
      everyoneBackSeconds: backAt === null ? null : round(stormSeconds, 2),
      resumeSecondsMedian: round(median(resumeMs) / 1000, 2),
      gaveUp: members.filter((member) => member.gaveUp).length,
      reconnects,
      reconnectAttempts: attempts,
      bystanders: loadMembers.filter((member) => member.closes === 0).length,
      bystanderP50WarmMs: p(histograms.warm, 0.5),
      bystanderP99WarmMs: p(histograms.warm, 0.99),
      bystanderP50StormMs: p(histograms.storm, 0.5),
      bystanderP99StormMs: p(histograms.storm, 0.99),
      bystanderMessagesStorm: sum(histograms.storm),
      // The probe: bystanders in a process of their own that never reconnects (see PROBE_ROOMS),
      // ahead of the load clients for the CPU when the system allowed it, so its figures are
      // the survivor's delay with as little of the load clients' own as one machine allows.
      probeMembers: PROBE_ROOMS * PROBE_ROOM_SIZE,
      probeAhead,
      probeP50WarmMs: p(probeReport.bystanders.warm, 0.5),
      probeP99WarmMs: p(probeReport.bystanders.warm, 0.99),
      probeP50StormMs: p(probeReport.bystanders.storm, 0.5),
      probeP99StormMs: p(probeReport.bystanders.storm, 0.99),
      probeMessagesStorm: sum(probeReport.bystanders.storm),
      probeEventLoopMaxStormMs: round(probeReport.eventLoop.storm.maxMs, 0),
      survivorEventLoopMaxStormMs: round(survivorLagMs, 0),
      clientEventLoopP99StormMs: round(
        Math.max(...reports.map((answer) => answer.eventLoop.storm.p99Ms)),
        0,
      ),
      clientEventLoopMaxStormMs: round(
        Math.max(...reports.map((answer) => answer.eventLoop.storm.maxMs)),
        0,
      ),
      acknowledged: check.acknowledged,
      lost: check.lost,
      shownTwice: check.conflicts,
      membersMissingSome: check.membersMissingSome,
      unacknowledged: sum(members.map((member) => member.unacknowledged.length)),
      // Stored although their sender never got them back: a client that sends them again
      // would store them twice.
      unacknowledgedButStored: sum(
        members.map((member) => {
          const bodies = new Set(member.list.map(([, , , body]) => body));
          return member.unacknowledged.filter((body) => bodies.has(body)).length;
        }),
      ),
      repeatedFramesAbsorbed: sum(members.map((member) => member.repeatedFrames)),
      credentialCallsPerReconnect:
        reconnects > 0
          ? round(sum(reconnected.map((member) => member.credentialCalls - 1)) / reconnects, 2)
          : null,
      ticketCallsPerReconnect:
        reconnects > 0
          ? round(sum(reconnected.map((member) => member.ticketCalls - 1)) / reconnects, 2)
          : null,
      redisCommandsPerReconnect: reconnects > 0 ? round(sum(perReconnect.values()), 1) : null,
      redisCommandsPerReconnectByCommand: Object.fromEntries(
        [...perReconnect].sort((a, b) => b[1] - a[1]),
      ),
      seconds: (Date.now() - started) / 1000,
    };
    log(
      [
        `  bystanders (${report.bystanders}): p50 ${report.bystanderP50WarmMs} ms / p99 ${report.bystanderP99WarmMs} ms before, p50 ${report.bystanderP50StormMs} ms / p99 ${report.bystanderP99StormMs} ms during the storm`,
        `  probe (${report.probeMembers} members on the survivor, own process${probeAhead ? `, nice ${PROBE_NICE}` : ''}): p50 ${report.probeP50WarmMs} ms / p99 ${report.probeP99WarmMs} ms before, p50 ${report.probeP50StormMs} ms / p99 ${report.probeP99StormMs} ms during the storm (${report.probeMessagesStorm} deliveries; its event loop's max ${report.probeEventLoopMaxStormMs} ms)`,
        `  event-loop delay during the storm: survivor's max ${report.survivorEventLoopMaxStormMs} ms; load clients' p99 ${report.clientEventLoopP99StormMs} ms, max ${report.clientEventLoopMaxStormMs} ms`,
        `  messages: ${report.acknowledged} acknowledged, ${report.lost} lost, ${report.shownTwice} shown twice (${report.unacknowledged} in flight at the kill never acknowledged, ${report.unacknowledgedButStored} of them stored all the same)`,
        `  per reconnect: ${report.credentialCallsPerReconnect} credential calls, ${report.ticketCallsPerReconnect} ticket calls, ${report.redisCommandsPerReconnect} Redis commands ${JSON.stringify(report.redisCommandsPerReconnectByCommand)}`,
      ].join('\n'),
    );
    return report;
  } finally {
    watching = false;
    await Promise.all(
      everyProcess.map((client) =>
        client.request({ type: 'close' }, 'closed').catch(() => client.kill()),
      ),
    );
    redis.disconnect();
    await cluster.stop();
  }
}
