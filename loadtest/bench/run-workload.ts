/**
 * Runs one workload against one running server: the capacity search, load steps, idle memory,
 * idle upkeep.
 */
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PING_INTERVAL_MS } from '@taco/protocol';
import type { BenchPlan, RateWorkload } from '../workloads/workloads';
import {
  DISTURBED_CORES,
  per10k,
  type RunSettings,
  type Session,
  type StepResult,
  withSession,
} from './session';
import type { RunningServer } from './servers';

/** A step at a fixed fraction (0.1, 0.25, 0.5, 1) of the capacity (the best step's rate). */
type LoadStep = StepResult & { fraction: number; cpuSecondsPer10kDeliveries: number | null };
/** Why the search stopped at `step` (or `last-step`: it did not). */
const stopReason = (step: StepResult) =>
  !step.valid ? 'client-saturated' : step.pass ? 'last-step' : 'limit';
type StopReason = ReturnType<typeof stopReason>;
export type RateFigures = ReturnType<typeof rateFigures>;
export type IdleFigures = Awaited<ReturnType<typeof runIdleWorkload>>;

const BISECTION_STEPS = 2;

/** Cores taken by outside processes or the hypervisor during a step, whichever is more. */
const disturbance = (step: StepResult) => Math.max(step.outsideCores, step.stealCores);

/** Connects every member of a rate workload and runs an unrecorded warm-up step first. */
export function withRateSession<T>(
  workload: RateWorkload,
  server: RunningServer,
  settings: RunSettings,
  run: (session: Session) => Promise<T>,
): Promise<T> {
  const { rooms, members, senders, replicas, arrivals } = workload;
  const tag = workload.id === 'fanout' ? 'fan' : 'rooms';
  const ports = server.ports.slice(0, replicas);
  const crowd = { tag, connections: rooms * members, members, senders, ports, arrivals };
  return withSession(server, crowd, settings, async (session) => {
    await session.connect();
    await sleep(settings.settleMs);
    // Warm-up (JIT, Redis scripts loaded), not recorded.
    await session.step(workload.roomRates[0] ?? 1, 1, false, () => undefined);
    return run(session);
  });
}

/** A room rate rounded to what a plan can state: two significant digits, or whole above 99. */
const roundRate = (rate: number) =>
  Number(rate.toPrecision(Math.max(2, Math.floor(Math.log10(rate)) + 1)));

/**
 * Rising-rate search for the capacity (the best step), then one step at each fraction of it, or of
 * `settings.stepBase`, in `settings.loadFractions` (CPU per delivery and latency across the load
 * range; the 50 % step is the half-load figure).
 */
export function runRateWorkload(
  workload: RateWorkload,
  server: RunningServer,
  settings: RunSettings,
): Promise<RateFigures> {
  return withRateSession(workload, server, settings, async (session) => {
    if (settings.fixed) {
      // One step; it stands for both the best and the half-load step, and its CPU per delivery
      // counts even when it missed its limits: the load was the same for every server.
      const step = await session.step(settings.fixed.roomRate, settings.fixed.seconds);
      settings.log(`    (fixed rate: no search, no load steps)`);
      const best = step.pass && step.valid ? step : null;
      return rateFigures([step], best, stopReason(step), step, [], step);
    }
    /**
     * A step, run once more when the machine was disturbed during it (`DISTURBED_CORES`) and
     * `again` says so: the first run and the second, if any.
     */
    const rerun = async (rate: number, seconds: number, again: (step: StepResult) => boolean) => {
      const first = await session.step(rate, seconds);
      if (disturbance(first) <= DISTURBED_CORES || !again(first)) return [first, null] as const;
      settings.log('    (the machine was disturbed during that step: running it once more)');
      await sleep(settings.settleMs * 2);
      return [first, await session.step(rate, seconds, true)] as const;
    };
    const steps: StepResult[] = [];
    /** A step of the workload's length, run again when it failed on a disturbed machine. */
    const steady = async (rate: number) => {
      const again = (step: StepResult) => !step.pass && step.valid;
      const [first, second] = await rerun(rate, workload.stepSeconds, again);
      steps.push(...(second ? [first, second] : [first]));
      return second ?? first;
    };
    let best: StepResult | null = null;
    let stoppedBy: StopReason = 'last-step';
    for (const rate of workload.roomRates) {
      const step = await steady(rate);
      stoppedBy = stopReason(step);
      if (stoppedBy !== 'last-step') break;
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
        const step = await steady(rate);
        if (step.valid && step.pass) {
          best = step;
          low = rate;
        } else {
          high = rate;
        }
      }
    }
    // A latency step, run again when disturbed, keeping the quieter run: latency is what such a
    // step measures, and what a neighbour's burst spoils first.
    const quiet = async (rate: number) => {
      const [first, second] = await rerun(rate, workload.halfLoadSeconds, () => true);
      return second && disturbance(second) < disturbance(first) ? second : first;
    };
    const capacity = best?.roomRate ?? workload.roomRates[0] ?? 1;
    const loadSteps: LoadStep[] = [];
    for (const fraction of settings.loadFractions) {
      // Let any backlog of the step before clear first.
      await sleep(settings.settleMs * 2);
      const rate = roundRate((settings.stepBase ?? capacity) * fraction);
      const of = settings.stepBase === undefined ? 'capacity' : "raw's capacity";
      settings.log(`    ${Math.round(fraction * 100)} % of ${of} (${rate} msg/s/room):`);
      const step = await quiet(rate);
      loadSteps.push({ ...step, fraction, cpuSecondsPer10kDeliveries: per10k(step) });
    }
    const half = loadSteps.find((step) => step.fraction === 0.5) ?? loadSteps.at(-1);
    const halfLoad = half ?? (await quiet(capacity / 2));
    return rateFigures(steps, best, stoppedBy, halfLoad, loadSteps);
  });
}

/**
 * The figures of a workload from its steps: CPU per delivery from `cpuStep` (the best step of a
 * search), peaks over every step and the half-load step.
 */
function rateFigures(
  steps: StepResult[],
  best: StepResult | null,
  stoppedBy: StopReason,
  halfLoad: StepResult,
  loadSteps: LoadStep[],
  cpuStep: StepResult | null = best,
) {
  const all = [...steps, ...loadSteps, halfLoad];
  return {
    steps,
    /** The highest valid passing step, or null when none passed. */
    best,
    stoppedBy,
    deliveredPerSecond: best?.deliveredPerSecond ?? 0,
    halfLoad,
    /** One step at each fraction of the capacity (empty with a fixed rate). */
    loadSteps,
    p50MsAtHalf: halfLoad.p50Ms,
    p99MsAtHalf: halfLoad.p99Ms,
    cpuSecondsPer10kDeliveries: cpuStep ? per10k(cpuStep) : null,
    clientCpuPeak: Math.max(...all.map((step) => step.clientCpu)),
    /** The most cores any step lost to processes outside the benchmark, and to steal. */
    outsideCoresPeak: Math.max(...all.map((step) => step.outsideCores)),
    stealCoresPeak: Math.max(...all.map((step) => step.stealCores)),
  };
}

/** Holds `connections` idle sockets on the server's first process and measures its memory. */
export function runIdleWorkload(
  workload: BenchPlan['idle'],
  server: RunningServer,
  settings: RunSettings,
) {
  const pid = server.processPids()[0];
  const port = server.ports[0];
  if (pid === undefined || port === undefined) throw new Error('server has no first process');
  const { connections, members } = workload;
  // Credentials from the other process, so the measured one only holds sockets.
  const httpPort = server.ports[1] ?? port;
  const crowd = { tag: 'idle', connections, members, senders: 0, ports: [port], httpPort };
  /**
   * The measured process's RSS less its young generation, after a full garbage collection
   * (SIGUSR2: the server hooks write it to a file named after the process).
   */
  const settledRss = async () => {
    const file = join(tmpdir(), `taco-bench-memory-${pid}`);
    process.kill(pid, 'SIGUSR2');
    await sleep(settings.settleMs);
    const bytes = Number(await readFile(file, 'utf8'));
    await rm(file);
    return bytes;
  };
  // A first crowd as large stays connected throughout: the figure is what one more connection
  // costs a process that holds many already, without what the first ones cost it once (compiled
  // code, allocator arenas grown), which moved it by 2 KiB between runs.
  const first = { ...crowd, tag: 'idle-first' };
  return withSession(server, first, settings, async (held) => {
    await held.connect(false, true);
    return withSession(server, crowd, settings, (session) => measure(session));
  });
  async function measure(session: Session) {
    const rssBeforeBytes = await settledRss();
    const cpuBefore = process.hrtime.bigint();
    const connected = await session.connect(false, true);
    const connectSeconds = Number(process.hrtime.bigint() - cpuBefore) / 1e9;
    if (connected.ok === 0)
      throw new Error(`no connection opened: ${connected.firstError ?? 'unknown'}`);
    // Let join traffic and garbage settle before reading memory.
    await sleep(settings.settleMs * 2);
    const rssAfterBytes = await settledRss();
    const stats = await session.collect();
    settings.log(
      `    ${connected.ok} connected (${connected.failed} failed) in ${connectSeconds.toFixed(1)} s, ` +
        `RSS less young generation ${(rssBeforeBytes / 2 ** 20).toFixed(1)} → ${(rssAfterBytes / 2 ** 20).toFixed(1)} MiB`,
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
  }
}

/**
 * Idle upkeep (`--only upkeep`): what quiet members cost a stack of 2 replicas and Redis once they
 * have settled: members joined as the web client joins, a warm-up, a window with every member
 * silent, one with every member sending the web client's heartbeat, spread evenly, and once they
 * left and a settle, the stack alone (baseline) over as long a window.
 * The warm-up (150 s) outlasts V8's memory reducer: up to three compacting collections after the
 * joins grew the heap, started at the latest 100 s after the last full one (a one-off, not upkeep).
 */
export type UpkeepFigures = Awaited<ReturnType<typeof runUpkeep>>;

/** CPU seconds per second (cores) of the replicas together, and of Redis, over a window. */
const cores = (step: StepResult) => ({
  replicaCores: step.apiCpuSeconds / step.wallSeconds,
  redisCores: step.redisCpuSeconds / step.wallSeconds,
});

/**
 * A window's upkeep net of the baseline: replica CPU ms/s per 1,000 members of a replica (members
 * are spread evenly, so that is all replicas' ms/s per 1,000 members), Redis CPU ms/s per 1,000.
 */
function upkeep(step: StepResult, baseline: ReturnType<typeof cores>, members: number) {
  const { replicaCores, redisCores } = cores(step);
  const per1k = (net: number) => (net * 1000) / (members / 1000);
  return {
    replicaCores,
    redisCores,
    replicaMsPerSecondPer1k: per1k(replicaCores - baseline.replicaCores),
    redisMsPerSecondPer1k: per1k(redisCores - baseline.redisCores),
    outsideCores: step.outsideCores,
    stealCores: step.stealCores,
  };
}

export function runUpkeep(
  workload: BenchPlan['upkeep'],
  server: RunningServer,
  settings: RunSettings,
) {
  const { rooms, members, replicas } = workload;
  const ports = server.ports.slice(0, replicas);
  const crowd = { tag: 'upkeep', connections: rooms * members, members, senders: 0, ports };
  return withSession(server, crowd, settings, async (session) => {
    const connected = await session.connect(true);
    settings.log(`    ${connected.ok} members joined; warm-up ${workload.warmupSeconds} s`);
    await sleep(workload.warmupSeconds * 1000);
    const window = async (title: string) => {
      settings.log(`    ${title}, ${workload.windowSeconds} s:`);
      return session.step(0, workload.windowSeconds);
    };
    const quiet = await window('quiet');
    await session.heartbeat(PING_INTERVAL_MS);
    const heartbeat = await window(`a heartbeat every ${PING_INTERVAL_MS / 1000} s`);
    // The baseline in the same warmed processes (a replica just started still compiles and
    // connects): the members leave, and the replicas' leave work is done before it is measured.
    await session.leave();
    settings.log(`    members left; settle ${workload.settleSeconds} s`);
    await sleep(workload.settleSeconds * 1000);
    const baseline = cores(await window('baseline (no member)'));
    return {
      members: connected.ok,
      replicas: workload.replicas,
      baseline,
      quiet: upkeep(quiet, baseline, connected.ok),
      heartbeat: upkeep(heartbeat, baseline, connected.ok),
    };
  });
}
