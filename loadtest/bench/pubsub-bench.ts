/**
 * `--only pubsub`: what classic `PUBLISH` and `SPUBLISH` cost a Redis Cluster as it grows (Redis
 * CPU per published message summed over every node, subscribers spread over the nodes).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { cpuWindow, type RedisCluster, startRedisCluster } from '@taco/harness';
import type { BenchPlan } from '../workloads/workloads';
import { mapValues, sum } from './scenarios/common';
import type { RunSettings } from './session';

export type PubSubFigures = Awaited<ReturnType<typeof runPubSubBench>>;

/** How long to wait for the last published messages to reach their subscribers. */
const PUBSUB_DRAIN_MS = 5000;
const TICK_MS = 10;

const channelNames = (workload: BenchPlan['pubsub']) =>
  Array.from({ length: workload.channels }, (_, i) => `chat:{bench-${i}}`);

/** `ownerPorts`: the master serving each channel's slot (every node is a master). */
async function runMode(
  cluster: RedisCluster,
  ownerPorts: number[],
  mode: 'PUBLISH' | 'SPUBLISH',
  subscribers: number,
  workload: BenchPlan['pubsub'],
  idleRate: number,
  log: (line: string) => void,
) {
  // Each node of the cluster with `subscribers` subscriber connections and a publisher.
  const nodes = await Promise.all(
    cluster.nodes.map(async (node) => {
      const options = { host: '127.0.0.1', port: node.port, lazyConnect: true };
      const subs = Array.from({ length: subscribers }, () => new Redis(options));
      // Each tick's messages to a node go out as one pipeline.
      const pub = new Redis({ ...options, enableAutoPipelining: true });
      await Promise.all([...subs.map((sub) => sub.connect()), pub.connect()]);
      return { port: node.port, pid: node.pid ?? 0, subs, pub, received: 0 };
    }),
  );
  type Node = (typeof nodes)[number];
  const masters = nodes.length;
  try {
    const channels = channelNames(workload);
    const owner = ownerPorts.map((port) => nodes.find((node) => node.port === port) as Node);
    // Subscribers spread over the nodes: classic pub/sub may subscribe anywhere (round-robin);
    // a shard channel only on the node that owns its slot.
    const subscriberOf = (index: number) =>
      mode === 'PUBLISH' ? (nodes[index % nodes.length] as Node) : (owner[index] as Node);
    for (const node of nodes) {
      const mine = channels.filter((_, index) => subscriberOf(index) === node);
      for (const sub of node.subs) {
        sub.on(mode === 'PUBLISH' ? 'message' : 'smessage', () => (node.received += 1));
        if (mine.length === 0) continue;
        if (mode === 'PUBLISH') await sub.subscribe(...mine);
        // One SSUBSCRIBE may only name channels of one slot.
        else await Promise.all(mine.map((channel) => sub.ssubscribe(channel)));
      }
    }
    const body = JSON.stringify({ type: 1, body: 'x'.repeat(120), seq: 0 });
    const publish = async (total: number, seconds: number): Promise<number> => {
      let sent = 0;
      const started = Date.now();
      for (let tick = 0; sent < total && tick < (seconds * 1000) / TICK_MS + 100; tick += 1) {
        const due = Math.min(total, Math.ceil((total * (Date.now() - started)) / (seconds * 1000)));
        const replies = [];
        for (; sent < due; sent += 1) {
          const index = sent % channels.length;
          replies.push((owner[index] as Node).pub.call(mode, channels[index] as string, body));
        }
        await Promise.all(replies);
        await sleep(TICK_MS);
      }
      return sent;
    };
    const received = () => sum(nodes.map((node) => node.received));
    const drain = async (expected: number) => {
      const deadline = Date.now() + PUBSUB_DRAIN_MS;
      while (received() < expected && Date.now() < deadline) await sleep(20);
    };
    // Warm-up, not recorded.
    const warm = await publish(Math.ceil(workload.messagesPerSecond / 4), 0.25);
    await drain(warm * subscribers);
    for (const node of nodes) node.received = 0;
    const window = cpuWindow<string>(
      Object.fromEntries(nodes.map((node) => [`:${node.port}`, [node.pid]])),
    );
    const total = Math.round(workload.messagesPerSecond * workload.seconds);
    const published = await publish(total, workload.seconds);
    await drain(published * subscribers);
    const { cpu, wallSeconds, outsideCores, stealCores } = window();
    const byNode = mapValues(cpu, (seconds) => (seconds / published) * 1e6);
    const all = sum(Object.values(byNode));
    const run = {
      masters,
      mode,
      /** Subscriber connections per channel (replicas with members in the room). */
      subscribers,
      published,
      received: received(),
      seconds: wallSeconds,
      /** Redis CPU per published message summed over every node (µs), and per node by `:port`. */
      redisMicrosPerMessage: published > 0 ? all : null,
      redisMicrosPerMessageByNode: byNode,
      /** Less what the same nodes spent idle for as long (cron, cluster bus): the messages' cost. */
      netMicrosPerMessage:
        published > 0 ? Math.max(0, all - ((idleRate * wallSeconds) / published) * 1e6) : null,
      outsideCores,
      stealCores,
    };
    const perNode = Object.values(byNode).map((value) => value.toFixed(1));
    log(
      `    ${masters} masters, ${mode}, ${subscribers} subscriber(s) per channel: ` +
        `${run.received}/${published * subscribers} delivered, Redis CPU ` +
        `${all.toFixed(2)} µs per message over all nodes, ${run.netMicrosPerMessage?.toFixed(2) ?? '–'} ` +
        `net of idle (per node ${perNode.join(' / ')}), ` +
        `outside ${run.outsideCores.toFixed(2)} + steal ${run.stealCores.toFixed(2)} cores`,
    );
    return run;
  } finally {
    await Promise.all(
      nodes.flatMap((node) => [...node.subs.map((sub) => sub.quit()), node.pub.quit()]),
    );
  }
}

/**
 * For each cluster size, a fresh cluster of masters only (no replicas, so only pub/sub's own
 * cost shows), and each mode at the same rate over the same channels.
 */
export async function runPubSubBench(workload: BenchPlan['pubsub'], { log }: RunSettings) {
  const runs = [];
  for (const masters of workload.masters) {
    const cluster = await startRedisCluster({ masters, replicasPerMaster: 0 });
    try {
      // CPU seconds per second every node of the cluster spends with nothing to do.
      const window = cpuWindow({ redis: cluster.nodes.map((node) => node.pid ?? 0) });
      await sleep(workload.seconds * 1000);
      const { total, wallSeconds } = window();
      const idleRate = total / wallSeconds;
      const ownerPorts = [];
      for (const channel of channelNames(workload)) {
        ownerPorts.push((await cluster.ownerOf(channel)).port);
      }
      for (const subscribers of workload.subscribersPerChannel) {
        for (const mode of ['PUBLISH', 'SPUBLISH'] as const) {
          runs.push(await runMode(cluster, ownerPorts, mode, subscribers, workload, idleRate, log));
        }
      }
    } finally {
      await cluster.stop();
    }
  }
  return { channels: workload.channels, messagesPerSecond: workload.messagesPerSecond, runs };
}
