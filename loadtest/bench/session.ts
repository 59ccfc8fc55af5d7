/**
 * The one runner for measured sessions, for the workloads and the scenarios alike: a server
 * started and always stopped around a run, load clients connected to it, and steps (a rate held
 * for a while) with deliveries, latency, and the CPU of the servers, Redis, nginx, the clients and
 * the rest of the machine over the step.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuWindow, emptyHistogram, merge, quantile } from '@taco/harness';
import { type ConnSpec, type LoadClients, loadClients, type SenderPlan } from './ipc';
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

/** Cores taken by outside processes or the hypervisor during a step, whichever is more. */
export function disturbance(step: StepResult): number {
  return Math.max(step.outsideCores, step.stealCores);
}

/** Server CPU seconds (processes + Redis) per 10,000 deliveries of a step, or null. */
export function per10k(step: StepResult, seconds = step.serverCpuSeconds): number | null {
  return step.received > 0 ? (seconds / step.received) * 10_000 : null;
}

let running: RunningServer | null = null;

/** Starts a server, runs `run` on it, and stops it whatever happens (or on `stopRunning`). */
export async function withServer<T>(
  start: () => Promise<RunningServer>,
  run: (server: RunningServer) => Promise<T>,
): Promise<T> {
  const server = await start();
  running = server;
  try {
    return await run(server);
  } finally {
    running = null;
    await server.stop();
  }
}

/** Stops the server a run is using, if any (on SIGINT). */
export async function stopRunning(): Promise<void> {
  await running?.stop();
}

/** Where a session's connections go, and who sends. */
export interface Layout {
  perClient: ConnSpec[][];
  /** For each client, its senders as indices into its own connections (rate set per step). */
  senders: number[][];
  membersPerRoom: number;
  sendersPerRoom: number;
}

/** Load clients on a server, ready to connect `layout` and then to run steps at any rate. */
export interface Session {
  readonly pool: LoadClients;
  /** Opens every connection on its load client; counts what opened and failed. */
  connect(): Promise<{ ok: number; failed: number; firstError: string | null }>;
  /** One step of `seconds` at `roomRate` messages/s per room, its line written with `log`. */
  step(
    roomRate: number,
    seconds: number,
    repeat?: boolean,
    log?: (line: string) => void,
  ): Promise<StepResult>;
  /**
   * A step, run once more when the machine was disturbed during it and `again` says so. Returns
   * every run, in order.
   */
  rerun(
    roomRate: number,
    seconds: number,
    again: (step: StepResult) => boolean,
  ): Promise<[StepResult] | [StepResult, StepResult]>;
  close(): Promise<void>;
}

let stepCounter = 0;

const fmt = (value: number | null) => (value === null ? '–' : value.toFixed(1));

/** Starts the load clients of a session on `server`; `close` ends them. */
export async function openSession(
  server: RunningServer,
  layout: Layout,
  settings: RunSettings,
): Promise<Session> {
  const pool = loadClients(settings.clients);
  try {
    await pool.ready();
  } catch (error) {
    await pool.close();
    throw error;
  }
  const step = async (roomRate: number, seconds: number, repeat = false, log = settings.log) => {
    stepCounter += 1;
    const id = stepCounter;
    const perSender = roomRate / layout.sendersPerRoom;
    const redisPids = Object.fromEntries(
      server.redisNodes().map((node) => [node.name, [node.pid]]),
    );
    const window = cpuWindow<string>({
      api: server.processPids(),
      nginx: server.nginxPids(),
      ...redisPids,
    });
    const sentAnswers = await pool.all(
      (index) => ({
        type: 'step',
        step: id,
        senders: (layout.senders[index] ?? []).map((conn): SenderPlan => ({
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
    const expected = sent * layout.membersPerRoom;
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
    const stats = await pool.all(() => ({ type: 'collect', step: id }), 'stats');
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
    const { cpu, total, wallSeconds, outsideCores, stealCores } = window(clientsCpuSeconds);
    const redisCpuByNode: Record<string, number> = {};
    for (const name of Object.keys(redisPids)) redisCpuByNode[name] = cpu[name] ?? 0;
    const nginxCpuSeconds = cpu.nginx ?? 0;
    const redisCpuSeconds = Object.values(redisCpuByNode).reduce((sum, value) => sum + value, 0);
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
      serverCpuSeconds: total,
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
    log(
      `    ${roomRate} msg/s/room: ${received}/${expected} delivered, p50 ${fmt(p50Ms)} p99 ${fmt(p99Ms)} ms, ` +
        `server CPU ${total.toFixed(2)} s (Redis ${redisCpuSeconds.toFixed(2)}), client CPU ${(clientCpu * 100).toFixed(0)} %, ` +
        `outside ${outsideCores.toFixed(2)} + steal ${stealCores.toFixed(2)} cores` +
        `${pass || roomRate === 0 ? '' : ' ✗'}${result.valid ? '' : ' (client saturated: invalid)'}`,
    );
    return result;
  };
  return {
    pool,
    connect: async () => {
      const answers = await pool.all(
        (index) => ({
          type: 'connect',
          kind: server.kind,
          conns: layout.perClient[index] ?? [],
          concurrency: settings.connectConcurrency,
        }),
        'connected',
      );
      return {
        ok: answers.reduce((sum, answer) => sum + answer.ok, 0),
        failed: answers.reduce((sum, answer) => sum + answer.failed, 0),
        firstError: answers.find((answer) => answer.firstError)?.firstError ?? null,
      };
    },
    step,
    rerun: async (roomRate, seconds, again) => {
      const first = await step(roomRate, seconds);
      if (disturbance(first) <= DISTURBED_CORES || !again(first)) return [first];
      settings.log('    (the machine was disturbed during that step: running it once more)');
      await sleep(settings.settleMs * 2);
      return [first, await step(roomRate, seconds, true)];
    },
    close: () => pool.close(),
  };
}
