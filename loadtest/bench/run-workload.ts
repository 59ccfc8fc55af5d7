/** Runs one workload against one running server: the capacity search, load steps, idle memory. */
import { setTimeout as sleep } from 'node:timers/promises';
import { rssBytes } from '@taco/harness';
import type { IdleWorkload, RateWorkload } from '../workloads/workloads';
import {
  disturbance,
  openSession,
  per10k,
  type RunSettings,
  type Session,
  type StepResult,
} from './session';
import { collectGarbage, type RunningServer } from './servers';

/** A step at a fixed fraction (0.1, 0.25, 0.5, 1) of the capacity (the best step's rate). */
type LoadStep = StepResult & { fraction: number; cpuSecondsPer10kDeliveries: number | null };
/** Why the search stopped. */
type StopReason = 'limit' | 'client-saturated' | 'last-step';
export type RateFigures = ReturnType<typeof rateFigures>;
export type IdleFigures = Awaited<ReturnType<typeof runIdleWorkload>>;

const BISECTION_STEPS = 2;

/**
 * A latency step, run once more when the machine was disturbed during it, keeping the quieter
 * run: latency is what such a step measures, and what a neighbour's burst spoils first.
 */
async function quietStep(session: Session, roomRate: number, seconds: number) {
  const [first, again] = await session.rerun(roomRate, seconds, () => true);
  return again && disturbance(again) < disturbance(first) ? again : first;
}

/**
 * A step of the workload's own length, run once more when it failed on a disturbed machine:
 * every run goes into `steps`, and the one that counts (the last) comes back.
 */
async function steadyStep(
  session: Session,
  workload: RateWorkload,
  roomRate: number,
  steps: StepResult[],
): Promise<StepResult> {
  const again = (step: StepResult) => !step.pass && step.valid;
  const runs = await session.rerun(roomRate, workload.stepSeconds, again);
  steps.push(...runs);
  return runs[runs.length - 1] as StepResult;
}

/** Starts the load clients, connects every member and runs an unrecorded warm-up step. */
export async function openRateSession(
  workload: RateWorkload,
  server: RunningServer,
  settings: RunSettings,
): Promise<Session> {
  const crowd = {
    tag: `${workload.id === 'fanout' ? 'fan' : 'rooms'}-${server.id}-${Date.now().toString(36)}`,
    connections: workload.rooms * workload.members,
    members: workload.members,
    senders: workload.senders,
    ports: server.ports.slice(0, workload.replicas),
    arrivals: workload.arrivals,
  };
  const session = await openSession(server, crowd, settings);
  try {
    await session.connect();
    await sleep(settings.settleMs);
    // Warm-up (JIT, Redis scripts loaded), not recorded.
    await session.step(workload.roomRates[0] ?? 1, 1, false, () => undefined);
  } catch (error) {
    await session.close();
    throw error;
  }
  return session;
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
    const steps: StepResult[] = [];
    let best: StepResult | null = null;
    let stoppedBy: StopReason = 'last-step';
    for (const rate of workload.roomRates) {
      const step = await steadyStep(session, workload, rate, steps);
      if (!step.valid || !step.pass) {
        stoppedBy = step.valid ? 'limit' : 'client-saturated';
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
        const step = await steadyStep(session, workload, rate, steps);
        if (step.valid && step.pass) {
          best = step;
          low = rate;
        } else {
          high = rate;
        }
      }
    }
    const capacity = best?.roomRate ?? workload.roomRates[0] ?? 1;
    const loadSteps: LoadStep[] = [];
    for (const fraction of settings.loadFractions) {
      // Let any backlog of the step before clear first.
      await sleep(settings.settleMs * 2);
      const rate = roundRate(capacity * fraction);
      settings.log(`    ${Math.round(fraction * 100)} % of capacity (${rate} msg/s/room):`);
      const step = await quietStep(session, rate, workload.halfLoadSeconds);
      loadSteps.push({ ...step, fraction, cpuSecondsPer10kDeliveries: per10k(step) });
    }
    const half = loadSteps.find((step) => step.fraction === HALF) ?? loadSteps.at(-1);
    const halfLoad = half ?? (await quietStep(session, capacity / 2, workload.halfLoadSeconds));
    return rateFigures(steps, best, stoppedBy, halfLoad, loadSteps);
  } finally {
    await session.close();
  }
}

const HALF = 0.5;

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

/** One step at a fixed rate; its figures stand for both the best step and the half-load step. */
async function runFixedRate(
  session: Session,
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
) {
  const pid = server.processPids()[0];
  const port = server.ports[0];
  if (pid === undefined || port === undefined) throw new Error('server has no first process');
  const crowd = {
    tag: `idle-${server.id}-${Date.now().toString(36)}`,
    connections: workload.connections,
    members: workload.members,
    senders: 0,
    ports: [port],
    // Credentials from the other process, so the measured one only holds sockets.
    httpPort: server.ports[1] ?? port,
  };
  const session = await openSession(server, crowd, settings);
  try {
    collectGarbage([pid]);
    await sleep(settings.settleMs);
    const rssBeforeBytes = rssBytes(pid);
    const cpuBefore = process.hrtime.bigint();
    const connected = await session.connect(false, true);
    const connectSeconds = Number(process.hrtime.bigint() - cpuBefore) / 1e9;
    if (connected.ok === 0)
      throw new Error(`no connection opened: ${connected.firstError ?? 'unknown'}`);
    // Let join traffic and garbage settle before reading memory.
    await sleep(settings.settleMs * 2);
    collectGarbage([pid]);
    await sleep(settings.settleMs);
    const rssAfterBytes = rssBytes(pid);
    const stats = await session.pool.all(() => ({ type: 'collect', step: -1 }), 'stats');
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
    await session.close();
  }
}
