/**
 * Idle upkeep (`--only upkeep`): what quiet members cost a stack of 2 replicas and Redis once they
 * have settled. The stack alone first (baseline), then members joined as the web client joins, a
 * warm-up (replica CPU keeps falling for about two minutes after joins), a window with every member
 * silent, and one with every member sending the web client's heartbeat, spread evenly.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { PING_INTERVAL_MS } from '@taco/protocol';
import type { UpkeepWorkload } from '../workloads/workloads';
import { openSession, type RunSettings, type StepResult } from './session';
import type { RunningServer } from './servers';

export type UpkeepFigures = Awaited<ReturnType<typeof runUpkeep>>;

/** CPU seconds per second (cores) of the replicas together, and of Redis, over a window. */
function cores(step: StepResult) {
  const replicas = step.serverCpuSeconds - step.redisCpuSeconds - step.nginxCpuSeconds;
  return {
    replicaCores: replicas / step.wallSeconds,
    redisCores: step.redisCpuSeconds / step.wallSeconds,
  };
}

type Cores = ReturnType<typeof cores>;

/**
 * A window's upkeep net of the baseline: replica CPU ms/s per 1,000 members of a replica (members
 * are spread evenly, so that is all replicas' ms/s per 1,000 members), Redis CPU ms/s per 1,000.
 */
function upkeep(step: StepResult, baseline: Cores, members: number) {
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

export async function runUpkeep(
  workload: UpkeepWorkload,
  server: RunningServer,
  settings: RunSettings,
) {
  const crowd = {
    tag: `upkeep-${server.id}-${Date.now().toString(36)}`,
    connections: workload.rooms * workload.members,
    members: workload.members,
    senders: 0,
    ports: server.ports.slice(0, workload.replicas),
  };
  const session = await openSession(server, crowd, settings);
  try {
    // The stack settles first (a process just started still compiles and connects): unmeasured.
    await sleep(workload.baselineSeconds * 1000);
    settings.log(`    baseline (no member), ${workload.baselineSeconds} s:`);
    const baseline = cores(await session.step(0, workload.baselineSeconds));
    const connected = await session.connect(true);
    if (connected.failed > 0) {
      throw new Error(
        `${connected.failed} connections failed: ${connected.firstError ?? 'unknown'}`,
      );
    }
    settings.log(`    ${connected.ok} members joined; warm-up ${workload.warmupSeconds} s`);
    await sleep(workload.warmupSeconds * 1000);
    const window = async (title: string) => {
      settings.log(`    ${title}, ${workload.windowSeconds} s:`);
      const step = await session.step(0, workload.windowSeconds);
      return upkeep(step, baseline, connected.ok);
    };
    const quiet = await window('quiet');
    await session.heartbeat(PING_INTERVAL_MS);
    const heartbeat = await window(`a heartbeat every ${PING_INTERVAL_MS / 1000} s`);
    return { members: connected.ok, replicas: workload.replicas, baseline, quiet, heartbeat };
  } finally {
    await session.close();
  }
}
