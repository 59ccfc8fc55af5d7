/** A replica killed (SIGKILL) or drained (SIGTERM, close 1012) while its members chat. */
import { CloseCode } from '@taco/protocol';
import { type Cluster, type ReplicaHandle } from '../cluster';
import { type ChaosOptions, type ScenarioResult, underFault, verdict } from './verdict';

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
  const victim = signal === 'SIGKILL' ? cluster.replicas[1] : cluster.replicas[0];
  if (!victim) throw new Error('no replica');
  const { room, all } = await underFault(
    cluster,
    signal,
    options.short ? 6 : 18,
    options.short ? 3000 : 8000,
    () => stopReplica(victim, signal),
  );
  const drained = all.filter((m) => m.stats.closeCodes.includes(CloseCode.Restart)).length;
  const [scenario, note] =
    signal === 'SIGKILL'
      ? ['replica SIGKILL', `killed ${victim.id}`]
      : ['replica SIGTERM drain', `${drained} clients closed with 1012 by ${victim.id}`];
  const result = await verdict(cluster, scenario, room, all, new Set([victim]), [note]);
  await victim.restart();
  return result;
}

/** SIGKILL one replica while everyone chats; its members come back through nginx. */
export const killScenario = (cluster: Cluster, options: ChaosOptions) =>
  replicaScenario(cluster, options, 'SIGKILL');

/** SIGTERM one replica: it drains with 1012 and its members move at once. */
export const drainScenario = (cluster: Cluster, options: ChaosOptions) =>
  replicaScenario(cluster, options, 'SIGTERM');
