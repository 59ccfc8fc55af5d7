/** A replica killed (SIGKILL) or drained (SIGTERM, close 1012) while its members chat. */
import { CloseCode } from '@taco/protocol';
import { type Cluster } from '../cluster';
import { type ChaosOptions, underFault, verdict } from './verdict';

/** SIGKILL: its members come back through nginx; SIGTERM: it drains, they move at once. */
export async function replicaScenario(
  cluster: Cluster,
  options: ChaosOptions,
  signal: 'SIGKILL' | 'SIGTERM',
) {
  const victim = signal === 'SIGKILL' ? cluster.replicas[1] : cluster.replicas[0];
  if (!victim) throw new Error('no replica');
  const size = options.short ? { members: 6, ms: 3000 } : { members: 18, ms: 8000 };
  const { room, all } = await underFault(cluster, signal, size, async () => {
    victim.kill(signal);
    await victim.exited;
  });
  const drained = all.filter((m) => m.stats.closeCodes.includes(CloseCode.Restart)).length;
  const [scenario, note] =
    signal === 'SIGKILL'
      ? ['replica SIGKILL', `killed ${victim.id}`]
      : ['replica SIGTERM drain', `${drained} clients closed with 1012 by ${victim.id}`];
  const result = await verdict(cluster, scenario, room, all, [note], 0, [victim]);
  await victim.restart();
  return result;
}
