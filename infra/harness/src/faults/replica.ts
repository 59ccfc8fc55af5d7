/** A replica killed (SIGKILL) or drained (SIGTERM, close 1012) while its members chat. */
import { CloseCode } from '@taco/protocol';
import { type Cluster, type ReplicaHandle } from '../cluster';
import { sleep } from '../wait';
import {
  type ChaosOptions,
  chatter,
  members,
  type ScenarioResult,
  settle,
  verdict,
} from './verdict';

/** Stops `victim` with `signal` and resolves once it has exited. */
export async function stopReplica(victim: ReplicaHandle, signal: NodeJS.Signals): Promise<void> {
  victim.kill(signal);
  await victim.exited;
}

async function replicaScenario(
  cluster: Cluster,
  options: ChaosOptions,
  signal: 'SIGKILL' | 'SIGTERM',
): Promise<ScenarioResult> {
  const room = `chaos-${signal.toLowerCase()}-${Date.now()}`;
  const all = await members(cluster.url, room, options.short ? 6 : 18);
  const victim = signal === 'SIGKILL' ? cluster.replicas[1] : cluster.replicas[0];
  if (!victim) throw new Error('no replica');
  await chatter(all, options.short ? 3000 : 8000, 250, async () => {
    await sleep(800);
    await stopReplica(victim, signal);
  });
  await settle(all);
  const drained = all.filter((m) => m.stats.closeCodes.includes(CloseCode.Restart)).length;
  const result =
    signal === 'SIGKILL'
      ? await verdict(cluster, 'replica SIGKILL', room, all, new Set([victim]), [
          `killed ${victim.id}`,
        ])
      : await verdict(cluster, 'replica SIGTERM drain', room, all, new Set([victim]), [
          `${drained} clients closed with 1012 by ${victim.id}`,
        ]);
  await victim.restart();
  return result;
}

/** SIGKILL one replica while everyone chats; its members come back through nginx. */
export const killScenario = (cluster: Cluster, options: ChaosOptions) =>
  replicaScenario(cluster, options, 'SIGKILL');

/** SIGTERM one replica: it drains with 1012 and its members move at once. */
export const drainScenario = (cluster: Cluster, options: ChaosOptions) =>
  replicaScenario(cluster, options, 'SIGTERM');
