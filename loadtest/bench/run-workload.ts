/** Runs one workload against one running server with fresh load-client processes. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { IdleWorkload, RateWorkload } from '../workloads/workloads';
import { ClientPool } from './clients';
import { emptyHistogram, merge, quantile } from './histogram';
import type { ConnSpec, SenderPlan } from './ipc';
import { cpuSeconds, machineCpu, rssBytes, totalCpuSeconds } from './proc-stats';
import { collectGarbage, type RunningServer } from './servers';

export interface RunSettings {
  clients: number;
  connectConcurrency: number;
  drainMs: number;
  /** Pause after connecting (joins, subscriptions and garbage settle). */
  settleMs: number;
  bodyBytes: number;
  clientSaturation: number;
  p99LimitMs: number;
  /** Fractions of the capacity found to run one step at each, after the search. */
  loadFractions: readonly number[];
  /** Hold one rate instead of searching (for profiles and CPU comparisons at equal load). */
  fixed?: { roomRate: number; seconds: number };
  log: (line: string) => void;
}

export interface StepResult {
  /** Offered messages per second per room. */
  roomRate: number;
  seconds: number;
  /** Sending plus the drain: the window the CPU figures cover. */
  wallSeconds: number;
  sent: number;
  expected: number;
  received: number;
  deliveredPerSecond: number;
  p50Ms: number | null;
  p99Ms: number | null;
  serverCpuSeconds: number;
  /** The part of `serverCpuSeconds` spent by redis-server (every node of a Redis Cluster). */
  redisCpuSeconds: number;
  /** `redisCpuSeconds` per Redis node, by the node's name (`redis`, or `:port` in a cluster). */
  redisCpuByNode: Record<string, number>;
  /** The part of `serverCpuSeconds` spent by nginx (0 unless the clients go through it). */
  nginxCpuSeconds: number;
  /** The busiest load client's CPU while sending, as a fraction of one core. */
  clientCpu: number;
  /**
   * Cores used by processes outside the benchmark during the step (machine-wide busy time minus
   * servers, Redis, load clients and the parent), and cores stolen by the hypervisor.
   */
  outsideCores: number;
  stealCores: number;
  errors: number;
  /** Delivered everything with p99 within the limit and no error frames. */
  pass: boolean;
  /** False when a load client was saturated: the step measured the client, not the server. */
  valid: boolean;
  /** A second run of a step that failed while the machine was disturbed (see `DISTURBED_CORES`). */
  repeat: boolean;
}

/** A step at a fixed fraction of the capacity the search found. */
export interface LoadStep extends StepResult {
  /** Of the capacity (the best step's rate): 0.1, 0.25, 0.5, 1. */
  fraction: number;
  cpuSecondsPer10kDeliveries: number | null;
}

export interface RateFigures {
  steps: StepResult[];
  /** The highest valid passing step, or null when none passed. */
  best: StepResult | null;
  /** Why the search stopped. */
  stoppedBy: 'limit' | 'client-saturated' | 'last-step';
  deliveredPerSecond: number;
  halfLoad: StepResult;
  /** One step at each fraction of the capacity (empty with a fixed rate). */
  loadSteps: LoadStep[];
  p50MsAtHalf: number | null;
  p99MsAtHalf: number | null;
  cpuSecondsPer10kDeliveries: number | null;
  clientCpuPeak: number;
  /** The most cores any step lost to processes outside the benchmark, and to steal. */
  outsideCoresPeak: number;
  stealCoresPeak: number;
}

export interface IdleFigures {
  connections: number;
  failed: number;
  connectSeconds: number;
  rssBeforeBytes: number;
  rssAfterBytes: number;
  bytesPerConnection: number;
  clientCpuPeak: number;
}

/**
 * Outside load or hypervisor steal (cores) during a step above which the machine counts as
 * disturbed: the report warns, and a step that failed that way is run once more, for every server
 * alike, so a figure reflects the server rather than a neighbour's burst.
 */
export const DISTURBED_CORES = 0.25;

let stepCounter = 0;
const BISECTION_STEPS = 2;

interface Layout {
  perClient: ConnSpec[][];
  /** For each client, its senders as [local index] (rate filled per step). */
  senders: number[][];
  membersPerRoom: number;
}

function layout(
  workload: RateWorkload,
  server: RunningServer,
  clients: number,
  tag: string,
): Layout {
  const perClient: ConnSpec[][] = Array.from({ length: clients }, () => []);
  const senders: number[][] = Array.from({ length: clients }, () => []);
  let id = 0;
  const replicas = Math.min(workload.replicas, server.ports.length);
  for (let r = 0; r < workload.rooms; r += 1) {
    for (let m = 0; m < workload.members; m += 1) {
      const client = id % clients;
      const list = perClient[client] ?? [];
      const port = server.ports[id % replicas] ?? 0;
      if (m < workload.senders) senders[client]?.push(list.length);
      list.push({ id, port, room: `${tag}-${r}`, name: `user-${m}` });
      id += 1;
    }
  }
  return { perClient, senders, membersPerRoom: workload.members };
}

async function connect(
  pool: ClientPool,
  perClient: ConnSpec[][],
  server: RunningServer,
  settings: RunSettings,
) {
  const answers = await pool.all(
    (index) => ({
      type: 'connect',
      kind: server.kind,
      conns: perClient[index] ?? [],
      concurrency: settings.connectConcurrency,
    }),
    'connected',
  );
  const ok = answers.reduce((sum, answer) => sum + answer.ok, 0);
  const failed = answers.reduce((sum, answer) => sum + answer.failed, 0);
  const firstError = answers.find((answer) => answer.firstError)?.firstError ?? null;
  return { ok, failed, firstError };
}

async function runStep(
  pool: ClientPool,
  lay: Layout,
  server: RunningServer,
  workload: RateWorkload,
  roomRate: number,
  seconds: number,
  settings: RunSettings,
  repeat = false,
): Promise<StepResult> {
  stepCounter += 1;
  const step = stepCounter;
  const perSender = roomRate / workload.senders;
  const redisNodes = server.redisNodes();
  const cpuBefore = totalCpuSeconds(server.allPids());
  const redisBefore = redisNodes.map((node) => cpuSeconds(node.pid));
  const nginxBefore = totalCpuSeconds(server.nginxPids());
  const machineBefore = machineCpu();
  const selfBefore = process.cpuUsage();
  const wallBefore = Date.now();
  const sentAnswers = await pool.all(
    (index) => ({
      type: 'step',
      step,
      senders: (lay.senders[index] ?? []).map((conn): SenderPlan => ({
        conn,
        perSecond: perSender,
      })),
      durationMs: seconds * 1000,
      bodyBytes: settings.bodyBytes,
    }),
    'sent',
  );
  let sent = 0;
  for (const answer of sentAnswers) {
    for (const count of Object.values(answer.sentByRoom)) sent += count;
  }
  const expected = sent * lay.membersPerRoom;
  const clientCpu = Math.max(
    ...sentAnswers.map((answer) => answer.cpuSeconds / answer.wallSeconds),
  );
  const deadline = Date.now() + settings.drainMs;
  for (;;) {
    const counts = await pool.all(() => ({ type: 'peek' }), 'count');
    const received = counts.reduce((sum, answer) => sum + answer.received, 0);
    if (received >= expected || Date.now() >= deadline) break;
    await sleep(50);
  }
  const stats = await pool.all(() => ({ type: 'collect', step }), 'stats');
  const serverCpuSeconds = totalCpuSeconds(server.allPids()) - cpuBefore;
  const redisCpuByNode: Record<string, number> = {};
  redisNodes.forEach((node, index) => {
    redisCpuByNode[node.name] = cpuSeconds(node.pid) - (redisBefore[index] ?? 0);
  });
  const redisCpuSeconds = Object.values(redisCpuByNode).reduce((sum, value) => sum + value, 0);
  const nginxCpuSeconds = totalCpuSeconds(server.nginxPids()) - nginxBefore;
  const machineAfter = machineCpu();
  const self = process.cpuUsage(selfBefore);
  const wallSeconds = (Date.now() - wallBefore) / 1000;
  const histogram = emptyHistogram();
  let received = 0;
  let errors = 0;
  let clientsCpuSeconds = 0;
  for (const answer of stats) {
    merge(histogram, answer.histogram);
    received += answer.received;
    errors += answer.errors + answer.closed;
    clientsCpuSeconds += answer.cpuSeconds;
  }
  const ours = serverCpuSeconds + clientsCpuSeconds + (self.user + self.system) / 1e6;
  const outsideCores = Math.max(0, (machineAfter.busy - machineBefore.busy - ours) / wallSeconds);
  const stealCores = (machineAfter.steal - machineBefore.steal) / wallSeconds;
  const p50Ms = quantile(histogram, 0.5);
  const p99Ms = quantile(histogram, 0.99);
  const pass =
    received >= expected &&
    expected > 0 &&
    errors === 0 &&
    (p99Ms ?? Infinity) <= settings.p99LimitMs;
  const result: StepResult = {
    roomRate,
    seconds,
    wallSeconds,
    sent,
    expected,
    received,
    deliveredPerSecond: received / seconds,
    p50Ms,
    p99Ms,
    serverCpuSeconds,
    redisCpuSeconds,
    redisCpuByNode,
    nginxCpuSeconds,
    clientCpu,
    outsideCores,
    stealCores,
    errors,
    pass,
    valid: clientCpu <= settings.clientSaturation,
    repeat,
  };
  settings.log(
    `    ${roomRate} msg/s/room: ${received}/${expected} delivered, p50 ${fmt(p50Ms)} p99 ${fmt(p99Ms)} ms, ` +
      `server CPU ${serverCpuSeconds.toFixed(2)} s (Redis ${redisCpuSeconds.toFixed(2)}), client CPU ${(clientCpu * 100).toFixed(0)} %, ` +
      `outside ${outsideCores.toFixed(2)} + steal ${stealCores.toFixed(2)} cores` +
      `${pass || roomRate === 0 ? '' : ' ✗'}${result.valid ? '' : ' (client saturated: invalid)'}`,
  );
  return result;
}

/** Cores taken by outside processes or the hypervisor during a step, whichever is more. */
function disturbance(step: StepResult): number {
  return Math.max(step.outsideCores, step.stealCores);
}

/**
 * Runs a step, and runs it once more when it failed while the machine was disturbed. Returns
 * every run, the one that counts last.
 */
async function steadyStep(
  pool: ClientPool,
  lay: Layout,
  server: RunningServer,
  workload: RateWorkload,
  roomRate: number,
  settings: RunSettings,
): Promise<StepResult[]> {
  const step = await runStep(pool, lay, server, workload, roomRate, workload.stepSeconds, settings);
  if (step.pass || !step.valid || disturbance(step) <= DISTURBED_CORES) return [step];
  settings.log('    (the machine was disturbed during that step: running it once more)');
  await sleep(settings.settleMs * 2);
  return [
    step,
    await runStep(pool, lay, server, workload, roomRate, workload.stepSeconds, settings, true),
  ];
}

function fmt(value: number | null): string {
  return value === null ? '–' : value.toFixed(1);
}

/** A workload's sockets connected on fresh load clients, ready to run steps at any rate. */
export interface RateSession {
  readonly membersPerRoom: number;
  /** One step of `seconds` at `roomRate` messages/s per room. */
  step(roomRate: number, seconds: number, repeat?: boolean): Promise<StepResult>;
  /** A step of the workload's own length, run once more when it failed on a disturbed machine. */
  steady(roomRate: number): Promise<StepResult[]>;
  close(): Promise<void>;
}

/** Starts the load clients, connects every member and runs an unrecorded warm-up step. */
export async function openRateSession(
  workload: RateWorkload,
  server: RunningServer,
  settings: RunSettings,
): Promise<RateSession> {
  const pool = new ClientPool(settings.clients);
  const tag = `${workload.id === 'fanout' ? 'fan' : 'rooms'}-${server.id}-${Date.now().toString(36)}`;
  const lay = layout(workload, server, settings.clients, tag);
  try {
    await pool.ready();
    const connected = await connect(pool, lay.perClient, server, settings);
    if (connected.failed > 0) {
      throw new Error(
        `${connected.failed} connections failed: ${connected.firstError ?? 'unknown'}`,
      );
    }
    await sleep(settings.settleMs);
    // Warm-up (JIT, Redis scripts loaded), not recorded.
    const first = workload.roomRates[0] ?? 1;
    await runStep(pool, lay, server, workload, first, 1, { ...settings, log: () => undefined });
  } catch (error) {
    await pool.close();
    throw error;
  }
  return {
    membersPerRoom: workload.members,
    step: (roomRate, seconds, repeat = false) =>
      runStep(pool, lay, server, workload, roomRate, seconds, settings, repeat),
    steady: (roomRate) => steadyStep(pool, lay, server, workload, roomRate, settings),
    close: async () => {
      await pool.close();
    },
  };
}

/**
 * Runs a latency step and, when the machine was disturbed during it, once more, keeping the
 * quieter run: latency is what such a step measures, and what a neighbour's burst spoils first.
 */
async function quietStep(
  session: RateSession,
  roomRate: number,
  seconds: number,
  settings: RunSettings,
): Promise<StepResult> {
  const step = await session.step(roomRate, seconds);
  if (disturbance(step) <= DISTURBED_CORES) return step;
  settings.log('    (the machine was disturbed during that step: running it once more)');
  await sleep(settings.settleMs * 2);
  const again = await session.step(roomRate, seconds, true);
  return disturbance(again) < disturbance(step) ? again : step;
}

/** A room rate rounded to what a plan can state (two significant digits, never 0). */
function roundRate(rate: number): number {
  const digits = Math.max(0, 1 - Math.floor(Math.log10(rate)));
  const factor = 10 ** digits;
  return Math.max(1 / factor, Math.round(rate * factor) / factor);
}

/**
 * Rising-rate search for the capacity (the best step), then one step at each fraction of it in
 * `settings.loadFractions` (CPU per delivery and latency across the load range; the 50 % step is
 * the half-load figure).
 */
export async function runRateWorkload(
  workload: RateWorkload,
  server: RunningServer,
  settings: RunSettings,
): Promise<RateFigures> {
  const session = await openRateSession(workload, server, settings);
  try {
    if (settings.fixed) return await runFixedRate(session, settings.fixed, settings);
    const first = workload.roomRates[0] ?? 1;
    const steps: StepResult[] = [];
    let best: StepResult | null = null;
    let stoppedBy: RateFigures['stoppedBy'] = 'last-step';
    for (const rate of workload.roomRates) {
      const runs = await session.steady(rate);
      steps.push(...runs);
      const step = runs[runs.length - 1] as StepResult;
      if (!step.valid) {
        stoppedBy = 'client-saturated';
        break;
      }
      if (!step.pass) {
        stoppedBy = 'limit';
        break;
      }
      best = step;
      await sleep(300);
    }
    // Two bisection steps between the last rate that held and the first that did not
    // (geometric midpoints), so the figure is within about 20 % instead of a factor of two.
    const failed = steps.at(-1);
    if (best && failed && stoppedBy === 'limit') {
      let low = best.roomRate;
      let high = failed.roomRate;
      for (let round = 0; round < BISECTION_STEPS; round += 1) {
        await sleep(settings.settleMs * 2);
        const rate = Math.round(Math.sqrt(low * high) * 10) / 10;
        if (rate <= low || rate >= high) break;
        const runs = await session.steady(rate);
        steps.push(...runs);
        const step = runs[runs.length - 1] as StepResult;
        if (step.valid && step.pass) {
          best = step;
          low = rate;
        } else {
          high = rate;
        }
      }
    }
    const capacity = best?.roomRate ?? first;
    const loadSteps: LoadStep[] = [];
    for (const fraction of settings.loadFractions) {
      // Let any backlog of the step before clear first.
      await sleep(settings.settleMs * 2);
      const rate = roundRate(capacity * fraction);
      settings.log(`    ${Math.round(fraction * 100)} % of capacity (${rate} msg/s/room):`);
      const step = await quietStep(session, rate, workload.halfLoadSeconds, settings);
      loadSteps.push({ ...step, fraction, cpuSecondsPer10kDeliveries: per10k(step) });
    }
    const half = loadSteps.find((step) => step.fraction === HALF) ?? loadSteps.at(-1);
    const halfLoad =
      half ?? (await quietStep(session, capacity / 2, workload.halfLoadSeconds, settings));
    return rateFigures(steps, best, stoppedBy, halfLoad, loadSteps);
  } finally {
    await session.close();
  }
}

const HALF = 0.5;

/** Server CPU seconds (processes + Redis) per 10,000 deliveries of a step, or null. */
export function per10k(step: StepResult, seconds = step.serverCpuSeconds): number | null {
  return step.received > 0 ? (seconds / step.received) * 10_000 : null;
}

/**
 * The figures of a workload from its steps: CPU per delivery from `cpuStep` (the best step of a
 * search), peaks over every step and the half-load step.
 */
function rateFigures(
  steps: StepResult[],
  best: StepResult | null,
  stoppedBy: RateFigures['stoppedBy'],
  halfLoad: StepResult,
  loadSteps: LoadStep[],
  cpuStep: StepResult | null = best,
): RateFigures {
  const all = [...steps, ...loadSteps, halfLoad];
  return {
    steps,
    best,
    stoppedBy,
    deliveredPerSecond: best?.deliveredPerSecond ?? 0,
    halfLoad,
    loadSteps,
    p50MsAtHalf: halfLoad.p50Ms,
    p99MsAtHalf: halfLoad.p99Ms,
    cpuSecondsPer10kDeliveries: cpuStep ? per10k(cpuStep) : null,
    clientCpuPeak: Math.max(...all.map((step) => step.clientCpu)),
    outsideCoresPeak: Math.max(...all.map((step) => step.outsideCores)),
    stealCoresPeak: Math.max(...all.map((step) => step.stealCores)),
  };
}

/** One step at a fixed rate; its figures stand for both the best step and the half-load step. */
async function runFixedRate(
  session: RateSession,
  fixed: { roomRate: number; seconds: number },
  settings: RunSettings,
): Promise<RateFigures> {
  const step = await session.step(fixed.roomRate, fixed.seconds);
  const best = step.pass && step.valid ? step : null;
  const stoppedBy = step.valid ? (step.pass ? 'last-step' : 'limit') : 'client-saturated';
  settings.log(`    (fixed rate: no search, no load steps)`);
  // CPU per delivery counts even when the step missed its limits: the load was the same for all.
  return rateFigures([step], best, stoppedBy, step, [], step);
}

/** Holds `connections` idle sockets on the server's first process and measures its memory. */
export async function runIdleWorkload(
  workload: IdleWorkload,
  server: RunningServer,
  settings: RunSettings,
): Promise<IdleFigures> {
  const pid = server.processPids()[0];
  const port = server.ports[0];
  if (pid === undefined || port === undefined) throw new Error('server has no first process');
  const pool = new ClientPool(settings.clients);
  try {
    await pool.ready();
    const tag = `idle-${server.id}-${Date.now().toString(36)}`;
    const perClient: ConnSpec[][] = Array.from({ length: settings.clients }, () => []);
    for (let id = 0; id < workload.connections; id += 1) {
      perClient[id % settings.clients]?.push({
        id,
        port,
        // Credentials from the other process, so the measured one only holds sockets.
        httpPort: server.ports[1] ?? port,
        room: `${tag}-${Math.floor(id / workload.members)}`,
        name: `user-${id % workload.members}`,
      });
    }
    collectGarbage([pid]);
    await sleep(settings.settleMs);
    const rssBeforeBytes = rssBytes(pid);
    const cpuBefore = process.hrtime.bigint();
    const connected = await connect(pool, perClient, server, settings);
    const connectSeconds = Number(process.hrtime.bigint() - cpuBefore) / 1e9;
    if (connected.ok === 0)
      throw new Error(`no connection opened: ${connected.firstError ?? 'unknown'}`);
    // Let join traffic and garbage settle before reading memory.
    await sleep(settings.settleMs * 2);
    collectGarbage([pid]);
    await sleep(settings.settleMs);
    const rssAfterBytes = rssBytes(pid);
    const stats = await pool.all(() => ({ type: 'collect', step: -1 }), 'stats');
    settings.log(
      `    ${connected.ok} connected (${connected.failed} failed) in ${connectSeconds.toFixed(1)} s, ` +
        `RSS ${(rssBeforeBytes / 2 ** 20).toFixed(1)} → ${(rssAfterBytes / 2 ** 20).toFixed(1)} MiB`,
    );
    return {
      connections: connected.ok,
      failed: connected.failed,
      connectSeconds,
      rssBeforeBytes,
      rssAfterBytes,
      bytesPerConnection: (rssAfterBytes - rssBeforeBytes) / connected.ok,
      clientCpuPeak: Math.max(
        ...stats.map((answer) => answer.cpuSeconds / Math.max(answer.wallSeconds, 1e-9)),
      ),
    };
  } finally {
    await pool.close();
  }
}
