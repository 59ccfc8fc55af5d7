/**
 * Idle upkeep (`--only upkeep`): what quiet members cost a stack of 2 replicas and Redis once they
 * have settled: members joined as the web client joins, a warm-up (replica CPU keeps falling for
 * about two minutes after joins), a window with every member silent, one with every member sending
 * the web client's heartbeat, spread evenly, and once they left and a settle, the stack alone
 * (baseline) over as long a window.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { PING_INTERVAL_MS } from '@taco/protocol';
import type { UpkeepWorkload } from '../workloads/workloads';
import { type RunSettings, type StepResult, withSession } from './session';
import type { RunningServer } from './servers';

export type UpkeepFigures = Awaited<ReturnType<typeof runUpkeep>>;

/** CPU seconds per second (cores) of the replicas together, and of Redis, over a window. */
const cores = (step: StepResult) => ({
  replicaCores: step.apiCpuSeconds / step.wallSeconds,
  redisCores: step.redisCpuSeconds / step.wallSeconds,
});

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

export function runUpkeep(workload: UpkeepWorkload, server: RunningServer, settings: RunSettings) {
  const crowd = {
    tag: 'upkeep',
    connections: workload.rooms * workload.members,
    members: workload.members,
    senders: 0,
    ports: server.ports.slice(0, workload.replicas),
  };
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
