/**
 * The reconnect storm. Two replicas behind nginx share Redis; `clients` members in rooms of 5–50
 * connect through nginx like the web client (credentials once, a ticket per socket), spread over
 * member processes, and each room's first member sends messages. After a warm-up, one replica is
 * killed with SIGKILL while messages flow: its members reconnect with the web client's policy
 * (5 s ± 20 %), through nginx to the survivor, and resume from their last `(epoch, seq)`. A probe
 * process of its own holds rooms straight on the survivor, never disconnected.
 *
 * Returns what the members saw (every acknowledged message in every member's list once, who came
 * back and how, the bystanders' and the probe's latency by phase), with what it cost: event-loop
 * delays, credential and ticket calls and Redis commands per reconnect (INFO commandstats over the
 * storm, less the same time's worth of the warm-up's steady traffic). The test checks the figures;
 * `npm run bench -- --only storm` prints them (`log`) and writes them as JSON.
 */
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Redis from 'ioredis';
import { type MemberReport } from '../client/chat-member';
import type { StormChildMessage, StormParentMessage, StormPhase, StormRoom } from './storm-members';
import { startCluster } from '../cluster';
import { IpcPool } from '../ipc-process';
import { commandStats, commandsPer, metricValue } from '../metrics';
import { count, emptyHistogram, merge, quantileMs as p, round, sum } from '../probe';
import { lacking, messageKey, percentile, SCENARIO_ENV } from './verdict';

const MEMBER_SCRIPT = resolve(__dirname, 'storm-members.ts');
const REPLY_TIMEOUT_MS = 180_000;
const STORM_LIMIT_MS = 90_000;
const POLL_MS = 100;
const DRAIN_MS = 3000;
const LAG_POLL_MS = 500;
export const ROOM_MIN = 5;
const ROOM_MAX = 50;
/** The probe: rooms of members of its own, straight on the survivor, sending often. */
const PROBE_ROOMS = 8;
const PROBE_ROOM_SIZE = 5;
const PROBE_MESSAGES_PER_SECOND = 4;
/** The probe process's nice value: ahead of the load clients, as a client on its own machine. */
const PROBE_NICE = -5;

export interface StormSettings {
  clients: number;
  /** Messages per second each room's sender sends. */
  rate: number;
  warmupSeconds: number;
  /** Member processes the members are spread over (whole rooms each). */
  processes: number;
  bodyBytes: number;
}

/** Rooms of 5–50 members, `clients` members in all, spread over sizes deterministically. */
export function planRooms(clients: number, run: string): StormRoom[] {
  const rooms: StormRoom[] = [];
  let left = clients;
  for (let i = 0; left > 0; i++) {
    let size = ROOM_MIN + ((i * 37) % (ROOM_MAX - ROOM_MIN + 1));
    if (left - size < ROOM_MIN) size = left <= ROOM_MAX ? left : left - ROOM_MIN;
    rooms.push({
      room: `storm-${run}-${i}`,
      names: Array.from({ length: size }, (_, k) => `member ${k}`),
    });
    left -= size;
  }
  return rooms;
}

/** Lost and doubled messages: each member's list against every acknowledged message of its room. */
export function checkLists(members: MemberReport[]) {
  const ackedByRoom = new Map<string, Map<string, string>>();
  for (const member of members) {
    const acked = ackedByRoom.get(member.room) ?? new Map<string, string>();
    ackedByRoom.set(member.room, acked);
    for (const message of member.acked) acked.set(messageKey(message), message.body);
  }
  const missing = members.map(
    (member) => lacking(member, ackedByRoom.get(member.room) ?? new Map<string, string>()).length,
  );
  return {
    acknowledged: sum([...ackedByRoom.values()].map((acked) => acked.size)),
    lost: sum(missing),
    shownTwice: sum(members.map((member) => member.conflicts)),
    membersMissingSome: missing.filter((n) => n > 0).length,
  };
}

export async function reconnectStorm(
  settings: StormSettings,
  log: (line: string) => void = () => undefined,
) {
  const { clients, rate, warmupSeconds, bodyBytes, processes: processCount } = settings;
  log(
    `== Reconnect storm: ${clients} clients in rooms of ${ROOM_MIN}–${ROOM_MAX}, ` +
      `${rate} msg/s per room, one of 2 replicas killed with SIGKILL`,
  );
  const run = String(Date.now() % 1_000_000);
  const rooms = planRooms(clients, run);
  const cluster = await startCluster({ replicas: 2, env: SCENARIO_ENV });
  // One member process more than asked: the last one is the probe.
  const pool = new IpcPool<StormParentMessage, StormChildMessage>(
    MEMBER_SCRIPT,
    'storm members',
    processCount + 1,
    REPLY_TIMEOUT_MS,
  );
  const isProbe = (index: number) => index === processCount;
  const redis = new Redis(cluster.redis?.url ?? '', { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await pool.ready();
    const probeAhead = pool.children[processCount]?.prioritize(PROBE_NICE) ?? false;
    const [victim, survivor] = cluster.replicas;
    if (!victim || !survivor) throw new Error('no replica to kill');
    const connectStarted = Date.now();
    const connected = await pool.all(
      (index) => ({
        type: 'connect',
        baseUrl: isProbe(index) ? survivor.url : cluster.url,
        rooms: isProbe(index)
          ? Array.from({ length: PROBE_ROOMS }, (_, i) => ({
              room: `storm-${run}-probe-${i}`,
              names: Array.from({ length: PROBE_ROOM_SIZE }, (_, k) => `probe ${k}`),
            }))
          : rooms.filter((_, room) => room % processCount === index),
        concurrency: isProbe(index) ? 8 : 32,
      }),
      'connected',
    );
    const failed = sum(connected.map((answer) => answer.failed));
    const connectSeconds = (Date.now() - connectStarted) / 1000;
    if (failed > 0) {
      const firstError = connected.find((answer) => answer.firstError)?.firstError;
      throw new Error(`${failed} clients did not connect: ${firstError}`);
    }
    pool.children.forEach((child, index) => {
      const messagesPerSecondPerRoom = isProbe(index) ? PROBE_MESSAGES_PER_SECOND : rate;
      child.tell({ type: 'traffic', messagesPerSecondPerRoom, bodyBytes });
    });
    const phase = (value: StormPhase) => {
      for (const child of pool.children) child.tell({ type: 'phase', phase: value });
    };
    await sleep(1000);
    // Redis commands of the steady traffic (warm-up), then of the storm.
    const warmStats = await commandStats(redis);
    const warmAt = Date.now();
    await sleep(warmupSeconds * 1000);
    const killStats = await commandStats(redis);
    const warmSeconds = (Date.now() - warmAt) / 1000;
    phase('storm');
    const killedAt = Date.now();
    victim.kill('SIGKILL');
    let status = { everClosed: 0, down: 0, gaveUp: 0 };
    let backAt: number | null = null;
    const storming = () => Date.now() - killedAt < STORM_LIMIT_MS && backAt === null;
    // The survivor's worst event-loop delay meanwhile (prom-client resets it per scrape).
    let survivorLagMs = 0;
    const watchingLag = (async () => {
      for (; storming(); await sleep(LAG_POLL_MS)) {
        const lag = metricValue(survivor.url, 'nodejs_eventloop_lag_max_seconds');
        survivorLagMs = Math.max(survivorLagMs, (await lag.catch(() => 0)) * 1000);
      }
    })();
    while (storming()) {
      await sleep(POLL_MS);
      const answers = await pool.all(() => ({ type: 'status' }), 'status');
      const total = (key: keyof typeof status) => sum(answers.map((answer) => answer[key]));
      status = { everClosed: total('everClosed'), down: total('down'), gaveUp: total('gaveUp') };
      if (status.everClosed > 0 && status.down === 0) backAt = Date.now();
    }
    await watchingLag;
    const backStats = await commandStats(redis);
    const stormSeconds = ((backAt ?? Date.now()) - killedAt) / 1000;
    phase('after');
    await sleep(2000);
    await pool.all(() => ({ type: 'quiet' }), 'quiet');
    await sleep(DRAIN_MS);
    const reports = await pool.all(() => ({ type: 'report' }), 'report');
    const probeReport = reports.pop();
    if (!probeReport) throw new Error('no probe report');
    const loadMembers = reports.flatMap((answer) => answer.members);
    const members = [...loadMembers, ...probeReport.members];
    const reconnected = members.filter((member) => member.closes > 0);
    const reconnects = sum(reconnected.map((member) => member.resumedAt.length));
    const perReconnect = (calls: (member: MemberReport) => number) =>
      reconnects > 0 ? round(sum(reconnected.map(calls)) / reconnects, 2) : null;
    const resumeMs = reconnected.map((m) => (m.resumedAt.at(-1) ?? Date.now()) - killedAt);
    const bystanders = { warm: emptyHistogram(), storm: emptyHistogram() };
    for (const each of reports) {
      merge(bystanders.warm, each.bystanders.warm);
      merge(bystanders.storm, each.bystanders.storm);
    }
    // Steady traffic's share of the storm's commands, from the warm-up's rate.
    const steady = (command: string) =>
      (((killStats.get(command) ?? 0) - (warmStats.get(command) ?? 0)) * stormSeconds) /
      warmSeconds;
    const redisPer = commandsPer(backStats, killStats, reconnects, 0.05, steady);
    const clientEventLoop = (key: 'p99Ms' | 'maxMs') =>
      round(Math.max(...reports.map((each) => each.eventLoop.storm[key])), 0);
    const probeSeen = probeReport.bystanders;
    /** What the members saw: the test's assertions and the bench report's figures. */
    const figures = {
      killed: victim.id,
      disconnected: reconnected.length,
      everyoneBackSeconds: backAt === null ? null : round(stormSeconds, 2),
      resumeSecondsMedian: round((percentile(resumeMs, 50) ?? 0) / 1000, 2),
      gaveUp: members.filter((member) => member.gaveUp).length,
      reconnects,
      reconnectAttempts: sum(reconnected.map((member) => member.reconnects)),
      bystanders: loadMembers.filter((member) => member.closes === 0).length,
      probeMembers: probeReport.members.length,
      ...checkLists(members),
      unacknowledged: sum(members.map((member) => member.unacknowledged.length)),
      // Stored although their sender never got them back: a client that sends them again
      // would store them twice.
      unacknowledgedButStored: sum(
        members.map((member) => {
          const bodies = new Set(member.list.map((message) => message.body));
          return member.unacknowledged.filter((body) => bodies.has(body)).length;
        }),
      ),
      repeatedFramesAbsorbed: sum(members.map((member) => member.repeatedFrames)),
      credentialCallsPerReconnect: perReconnect((member) => member.credentialCalls - 1),
      ticketCallsPerReconnect: perReconnect((member) => member.ticketCalls - 1),
      bystanderP50WarmMs: p(bystanders.warm, 0.5),
      bystanderP99WarmMs: p(bystanders.warm, 0.99),
      bystanderP50StormMs: p(bystanders.storm, 0.5),
      bystanderP99StormMs: p(bystanders.storm, 0.99),
      bystanderMessagesStorm: count(bystanders.storm),
      // The probe: bystanders in a process of their own that never reconnects, ahead of the load
      // clients for the CPU when the system allowed it, so its figures are the survivor's delay
      // with as little of the load clients' own as one machine allows.
      probeAhead,
      probeP50WarmMs: p(probeSeen.warm, 0.5),
      probeP99WarmMs: p(probeSeen.warm, 0.99),
      probeP50StormMs: p(probeSeen.storm, 0.5),
      probeP99StormMs: p(probeSeen.storm, 0.99),
      probeMessagesStorm: count(probeSeen.storm),
      probeEventLoopMaxStormMs: round(probeReport.eventLoop.storm.maxMs, 0),
      survivorEventLoopMaxStormMs: round(survivorLagMs, 0),
      clientEventLoopP99StormMs: clientEventLoop('p99Ms'),
      clientEventLoopMaxStormMs: clientEventLoop('maxMs'),
      redisCommandsPerReconnect: reconnects > 0 ? round(redisPer.sum, 1) : null,
      redisCommandsPerReconnectByCommand: redisPer.byCommand,
    };
    const f = figures;
    log(
      [
        `  connected ${clients} in ${connectSeconds.toFixed(1)} s; killed ${f.killed} (SIGKILL)`,
        backAt === null
          ? `  not everyone came back within 90 s: ${status.down} still down, ${status.gaveUp} gave up`
          : `  all ${status.everClosed} disconnected clients back and resumed ${stormSeconds.toFixed(1)} s after the kill`,
        `  bystanders (${f.bystanders}): p50 ${f.bystanderP50WarmMs} ms / p99 ${f.bystanderP99WarmMs} ms before, p50 ${f.bystanderP50StormMs} ms / p99 ${f.bystanderP99StormMs} ms during the storm`,
        `  probe (${f.probeMembers} members on the survivor, own process${probeAhead ? `, nice ${PROBE_NICE}` : ''}): p50 ${f.probeP50WarmMs} ms / p99 ${f.probeP99WarmMs} ms before, p50 ${f.probeP50StormMs} ms / p99 ${f.probeP99StormMs} ms during the storm (${f.probeMessagesStorm} deliveries; its event loop's max ${f.probeEventLoopMaxStormMs} ms)`,
        `  event-loop delay during the storm: survivor's max ${f.survivorEventLoopMaxStormMs} ms; load clients' p99 ${f.clientEventLoopP99StormMs} ms, max ${f.clientEventLoopMaxStormMs} ms`,
        `  messages: ${f.acknowledged} acknowledged, ${f.lost} lost, ${f.shownTwice} shown twice (${f.unacknowledged} in flight at the kill never acknowledged, ${f.unacknowledgedButStored} of them stored all the same)`,
        `  per reconnect: ${f.credentialCallsPerReconnect} credential calls, ${f.ticketCallsPerReconnect} ticket calls, ${f.redisCommandsPerReconnect} Redis commands ${JSON.stringify(f.redisCommandsPerReconnectByCommand)}`,
      ].join('\n'),
    );
    return {
      settings: { ...settings, rooms: rooms.length },
      figures,
      probeReport,
    };
  } finally {
    redis.disconnect();
    await pool.close();
    await cluster.stop();
  }
}
