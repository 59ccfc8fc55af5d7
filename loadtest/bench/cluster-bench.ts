/**
 * `--only cluster`: the many-rooms workload on Taco Chat at the same fixed rates on one standalone
 * Redis (clients straight to the replicas, then through nginx) and on a Redis Cluster (sharded
 * pub/sub), with Redis CPU per delivered message for every node and end-to-end latency.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchPlan } from '../workloads/workloads';
import { mapValues, sum } from './scenarios/common';
import { withRateSession } from './run-workload';
import { per10k, type RunSettings, settle, type StepResult, withServer } from './session';
import { type RunningServer, startServer, type TacoOptions } from './servers';

/** What the connected but silent workload costs (presence refresh, pings, cluster bus). */
type IdleCost = ReturnType<typeof idleCost>;
export type ClusterRun = Awaited<ReturnType<typeof runOn>>;
export type ClusterFigures = Awaited<ReturnType<typeof runClusterComparison>>;

/** CPU seconds per second (cores) of the api processes, nginx, and each Redis node. */
function idleCost(step: StepResult, connections: number) {
  const cores = (seconds: number) => seconds / step.wallSeconds;
  return {
    connections,
    apiCores: cores(step.apiCpuSeconds),
    nginxCores: cores(step.nginxCpuSeconds),
    redisCoresByNode: mapValues(step.redisCpuByNode, cores),
  };
}

/** One fixed-rate step of the comparison, with its CPU split per delivery. */
function clusterStep(step: StepResult, idle: IdleCost) {
  const micros = (seconds: number) => (seconds / step.received) * 1e6;
  const any = step.received > 0;
  const idleSeconds = (name: string) => (idle.redisCoresByNode[name] ?? 0) * step.wallSeconds;
  const net = (seconds: number, name: string) => Math.max(0, micros(seconds - idleSeconds(name)));
  const byNode = any ? mapValues(step.redisCpuByNode, micros) : {};
  const netByNode = any ? mapValues(step.redisCpuByNode, net) : {};
  return {
    ...step,
    /** Every api process and Redis node, seconds per 10,000 deliveries. */
    cpuSecondsPer10kDeliveries: per10k(step),
    /** CPU per delivered message (µs): Redis (all nodes and per node), the api processes, nginx. */
    redisMicrosPerDelivery: any ? micros(step.redisCpuSeconds) : null,
    redisMicrosPerDeliveryByNode: byNode,
    apiMicrosPerDelivery: any ? micros(step.apiCpuSeconds) : null,
    nginxMicrosPerDelivery: any ? micros(step.nginxCpuSeconds) : null,
    /** Redis CPU per delivery less what the same nodes spend idle for as long (`IdleCost`). */
    netRedisMicrosPerDelivery: any ? sum(Object.values(netByNode)) : null,
    netRedisMicrosPerDeliveryByNode: netByNode,
  };
}

/** The workload on `server`: a silent step, then each rate of the workload. */
function runOn(server: RunningServer, workload: BenchPlan['cluster'], settings: RunSettings) {
  return withRateSession(workload.rooms, server, settings, async (session) => {
    // A silent step first: what the connected members cost with nobody sending.
    await sleep(settings.settleMs);
    settings.log('    idle (connected, nobody sending):');
    const connections = workload.rooms.rooms * workload.rooms.members;
    const idle = idleCost(await session.step(0, workload.stepSeconds), connections);
    const steps = [];
    for (const rate of workload.roomRates) {
      await sleep(settings.settleMs);
      const step = clusterStep(await session.step(rate, workload.stepSeconds), idle);
      steps.push(step);
      const byNode = Object.entries(step.netRedisMicrosPerDeliveryByNode).map(
        ([name, micros]) => `${name} ${micros.toFixed(2)}`,
      );
      const line = `      Redis µs per delivery by node, net of idle: ${byNode.join(', ')}`;
      if (byNode.length > 1) settings.log(line);
    }
    return { nodes: server.redisNodes().map((node) => node.name), idle, steps };
  });
}

/**
 * Taco Chat on one Redis (clients straight to each replica's port, then through nginx), then on
 * the cluster, each at every rate of the workload.
 */
export async function runClusterComparison(workload: BenchPlan['cluster'], settings: RunSettings) {
  const run = (title: string, taco: TacoOptions) => {
    settings.log(`  Taco Chat, ${title}`);
    const start = () => startServer('taco', workload.rooms.replicas, settings.profileDir, taco);
    const measure = () => withServer(start, (server) => runOn(server, workload, settings));
    return settle(measure, settings.log);
  };
  const { masters } = workload;
  return {
    standalone: await run('one Redis', {}),
    viaNginx: await run('one Redis, every client through nginx', { viaNginx: true }),
    cluster: await run(`Redis Cluster (${masters} masters + ${masters} replicas)`, { masters }),
  };
}
