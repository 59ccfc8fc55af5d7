/**
 * The one runner for measured sessions, for the workloads and the scenarios alike: a server
 * started and always stopped around a run, load clients connected to it, and steps (a rate held
 * for a while) with deliveries, latency, and the CPU of the servers, Redis, nginx, the clients and
 * the rest of the machine over the step.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { resolve } from 'node:path';
import { cpuWindow, emptyHistogram, IpcPool, merge, quantile } from '@taco/harness';
import type { Api, ClientMessage, Crowd, ParentMessage } from './load-client';
import type { BenchPlan } from '../workloads/workloads';
import { mapValues, sum } from './scenarios/common';
import type { RunningServer } from './servers';

/** How a run's sessions go: the plan (its limits, `loadFractions`…), and these. */
export type RunSettings = BenchPlan & {
  clients: number;
  /** Pause after connecting (joins, subscriptions and garbage settle). */
  settleMs: number;
  /** Hold one rate instead of searching (for profiles and CPU comparisons at equal load). */
  fixed?: { roomRate: number; seconds: number } | undefined;
  /**
   * The capacity whose fractions the load steps run at, when not the server's own: the raw
   * ceiling's, for Taco Chat, so that both serve the same offered load at each step.
   */
  stepBase?: number | undefined;
  /** Where every server process writes its V8 CPU profile when it stops (`--profile`), if anywhere. */
  profileDir?: string | undefined;
  log: (line: string) => void;
};

export type StepResult = Awaited<ReturnType<Session['step']>>;

/**
 * Outside load or hypervisor steal (cores) during a step above which the machine counts as
 * disturbed: the report warns, and a step that failed that way is run once more, for every server
 * alike, so a figure reflects the server rather than a neighbour's burst.
 */
export const DISTURBED_CORES = 0.25;

/** Server CPU seconds (processes + Redis) per 10,000 deliveries of a step, or null. */
export function per10k(
  step: { received: number; serverCpuSeconds: number },
  seconds = step.serverCpuSeconds,
): number | null {
  return step.received > 0 ? (seconds / step.received) * 10_000 : null;
}

/** A part of the benchmark that ran (its figures), failed (its error), or was left out (both null). */
export interface Outcome<T> {
  figures: T | null;
  error: string | null;
}

export const skipped = <T = never>(): Outcome<T> => ({ figures: null, error: null });

/** The figures of a run, or its error's message, written with `log` when given. */
export async function settle<T>(
  run: () => Promise<T>,
  log?: (line: string) => void,
): Promise<Outcome<T>> {
  try {
    return { figures: await run(), error: null };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log?.(`    error: ${message}`);
    return { figures: null, error: message };
  }
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

/** Load clients on a server, ready to connect a crowd and then to run steps at any rate. */
export type Session = ReturnType<typeof openSession>;

let stepCounter = 0;

/**
 * Starts the load clients (load-client.ts) of a session on `server`; `ready` once they are up,
 * `close` ends them. `connect` opens every connection of `crowd` (its rooms named after its tag,
 * the server and the time), `step` runs `roomRate` messages/s per room for `seconds`.
 */
function openSession(server: RunningServer, tagged: Crowd, settings: RunSettings) {
  const crowd = { ...tagged, tag: `${tagged.tag}-${server.id}-${Date.now().toString(36)}` };
  const script = resolve(__dirname, 'load-client.ts');
  const pool = new IpcPool<ParentMessage, ClientMessage>(script, 'load client', settings.clients);
  /** One request of `type` to every load client, built from its index; every answer. */
  const call = <K extends keyof Api>(type: K, build: (index: number) => Parameters<Api[K]>[0]) =>
    pool.all((index) => ({ type, ...build(index) }) as ParentMessage, type);
  const step = async (roomRate: number, seconds: number, repeat = false, log = settings.log) => {
    const id = ++stepCounter;
    const redisPids = Object.fromEntries(
      server.redisNodes().map((node) => [node.name, [node.pid]]),
    );
    const window = cpuWindow<string>({
      api: server.processPids(),
      nginx: server.nginxPids(),
      ...redisPids,
    });
    const sentAnswers = await call('step', () => ({
      step: id,
      perSecond: roomRate / crowd.senders,
      durationMs: seconds * 1000,
      bodyBytes: settings.bodyBytes,
      arrivals: crowd.arrivals?.mode ?? 'fixed',
      seed: crowd.arrivals?.seed ?? 0,
    }));
    const sent = sum(sentAnswers.map((answer) => answer.sent));
    const expected = sent * crowd.members;
    const clientCpu = Math.max(
      ...sentAnswers.map((answer) => answer.cpuSeconds / answer.wallSeconds),
    );
    // The drain: until every message arrived or `drainMs` passed; the last answers count.
    const deadline = Date.now() + settings.drainMs;
    let stats = await call('collect', () => ({ step: id }));
    while (sum(stats.map((answer) => answer.received)) < expected && Date.now() < deadline) {
      await sleep(50);
      stats = await call('collect', () => ({ step: id }));
    }
    const histogram = emptyHistogram();
    for (const answer of stats) merge(histogram, answer.histogram);
    const received = sum(stats.map((answer) => answer.received));
    const errors = sum(stats.map((answer) => answer.errors + answer.closed));
    const clientsCpuSeconds = sum(stats.map((answer) => answer.cpuSeconds));
    const { cpu, total, wallSeconds, outsideCores, stealCores } = window(clientsCpuSeconds);
    const redisCpuByNode = mapValues(redisPids, (_, name) => cpu[name] ?? 0);
    const nginxCpuSeconds = cpu.nginx ?? 0;
    const redisCpuSeconds = sum(Object.values(redisCpuByNode));
    const p50Ms = quantile(histogram, 0.5);
    const p99Ms = quantile(histogram, 0.99);
    const pass =
      received >= expected &&
      expected > 0 &&
      errors === 0 &&
      (p99Ms ?? Infinity) <= settings.p99LimitMs;
    const result = {
      /** Offered messages per second per room. */
      roomRate,
      seconds,
      /** Sending plus the drain: the window the CPU figures cover. */
      wallSeconds,
      sent,
      expected,
      received,
      deliveredPerSecond: received / seconds,
      p50Ms,
      p99Ms,
      /** Every server process, Redis node and nginx (when in the path). */
      serverCpuSeconds: total,
      /** Of which the server processes (api replicas or peers), without Redis and nginx. */
      apiCpuSeconds: total - redisCpuSeconds - nginxCpuSeconds,
      /** Of which redis-server (every node of a Redis Cluster), and per node (`redis`, `:port …`). */
      redisCpuSeconds,
      redisCpuByNode,
      nginxCpuSeconds,
      /** The busiest load client's CPU while sending, as a fraction of one core. */
      clientCpu,
      /** Cores used by processes outside the benchmark during the step, and stolen by the hypervisor. */
      outsideCores,
      stealCores,
      errors,
      /** Delivered everything with p99 within the limit and no error frames. */
      pass,
      /** False when a load client was saturated: the step measured the client, not the server. */
      valid: clientCpu <= settings.clientSaturation,
      /** A second run of a step that failed while the machine was disturbed (`DISTURBED_CORES`). */
      repeat,
    };
    log(
      `    ${roomRate} msg/s/room: ${received}/${expected} delivered, p50 ${p50Ms?.toFixed(1) ?? '–'} p99 ${p99Ms?.toFixed(1) ?? '–'} ms, ` +
        `server CPU ${total.toFixed(2)} s (Redis ${redisCpuSeconds.toFixed(2)}), client CPU ${(clientCpu * 100).toFixed(0)} %, ` +
        `outside ${outsideCores.toFixed(2)} + steal ${stealCores.toFixed(2)} cores` +
        `${pass || roomRate === 0 ? '' : ' ✗'}${result.valid ? '' : ' (client saturated: invalid)'}`,
    );
    return result;
  };
  return {
    ready: () => pool.ready(),
    /**
     * Opens every connection (`web`: as the web client joins); counts what opened and failed, and
     * unless `partial`, fails when any did not open.
     */
    connect: async (web = false, partial = false) => {
      const answers = await call('connect', (index) => {
        return { kind: server.id, crowd, index, clients: settings.clients, web };
      });
      const ok = sum(answers.map((answer) => answer.ok));
      const failed = sum(answers.map((answer) => answer.failed));
      const firstError = answers.find((answer) => answer.firstError)?.firstError ?? null;
      if (failed > 0 && !partial) {
        throw new Error(`${failed} connections failed: ${firstError ?? 'unknown'}`);
      }
      return { ok, failed, firstError };
    },
    step,
    /** Every load client's counts and CPU since the last step started. */
    collect: () => call('collect', () => ({ step: -1 })),
    /** Every member sends a heartbeat each `periodMs` from now on, spread evenly over the period. */
    heartbeat: (periodMs: number) =>
      call('heartbeat', () => ({ periodMs, total: crowd.connections })),
    /** Every member leaves; the load clients stay up (a step after that measures no member). */
    leave: () => call('leave', () => ({})),
    close: () => pool.close(),
  };
}

/** A session on `server` around `run`, closed whatever happens. */
export async function withSession<T>(
  server: RunningServer,
  crowd: Crowd,
  settings: RunSettings,
  run: (session: Session) => Promise<T>,
): Promise<T> {
  const session = openSession(server, crowd, settings);
  try {
    await session.ready();
    return await run(session);
  } finally {
    await session.close();
  }
}
