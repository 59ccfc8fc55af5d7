/**
 * One workload's sockets on fresh load-client processes, and its steps: a rate held for a while,
 * with deliveries, latency, and the CPU of the servers, Redis, nginx, the clients and the rest of
 * the machine over the step.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { RateWorkload } from '../workloads/workloads';
import { ClientPool } from './clients';
import { emptyHistogram, merge, quantile } from './histogram';
import type { ConnSpec, SenderPlan } from './ipc';
import { cpuSeconds, machineWindow, totalCpuSeconds } from './proc-stats';
import type { RunningServer } from './servers';

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

/**
 * Outside load or hypervisor steal (cores) during a step above which the machine counts as
 * disturbed: the report warns, and a step that failed that way is run once more, for every server
 * alike, so a figure reflects the server rather than a neighbour's burst.
 */
export const DISTURBED_CORES = 0.25;

let stepCounter = 0;

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

/** Opens every connection of `perClient` on its load client; counts what opened and failed. */
export async function connect(
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
  const endWindow = machineWindow();
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
  const { wallSeconds, outsideCores, stealCores } = endWindow(serverCpuSeconds + clientsCpuSeconds);
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
export function disturbance(step: StepResult): number {
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

/** Server CPU seconds (processes + Redis) per 10,000 deliveries of a step, or null. */
export function per10k(step: StepResult, seconds = step.serverCpuSeconds): number | null {
  return step.received > 0 ? (seconds / step.received) * 10_000 : null;
}
