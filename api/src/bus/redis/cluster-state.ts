/** The hash slots of a Redis Cluster. */
const CLUSTER_SLOTS = 16_384;

/**
 * Whether a Redis Cluster that says it is down (`cluster_state:fail`) is only failing over: every
 * slot is served by a master that has not failed, or by a failed master that still has a replica
 * that has not failed, which is about to take over (within the cluster's node timeout and an
 * election). That includes the moment just after a failover, when the node already lists the
 * promoted replica as the slots' master but has not yet updated its own state (it does so within
 * 100 ms). Read from `CLUSTER NODES` (`<id> <address> <flags> <master id> <ping> <pong> <epoch>
 * <link> <slots>…` per line). A master lost together with its replicas leaves its slots unserved:
 * the cluster refuses every command until an operator brings one back. So does a slot no master
 * serves, and a master this node suspects (`fail?`: it may be on the minority side of a split).
 */
export function isFailingOver(clusterNodes: string): boolean {
  const lines = clusterNodes
    .split('\n')
    .map((line) => line.trim().split(' '))
    .filter((fields) => fields.length >= 8);
  const flagsOf = (fields: string[]) => (fields[2] ?? '').split(',');
  const isDown = (flags: string[]) => flags.includes('fail') || flags.includes('fail?');
  const hasStandIn = (masterId: string | undefined) =>
    lines.some((fields) => {
      const flags = flagsOf(fields);
      return flags.includes('slave') && !isDown(flags) && fields[3] === masterId;
    });
  let served = 0;
  for (const fields of lines) {
    const flags = flagsOf(fields);
    if (!flags.includes('master')) continue;
    const slots = slotCount(fields.slice(8));
    if (slots === 0) continue;
    if (flags.includes('fail?') || (flags.includes('fail') && !hasStandIn(fields[0]))) {
      return false;
    }
    served += slots;
  }
  return served === CLUSTER_SLOTS;
}

/** How many slots `CLUSTER NODES` ranges hold (`0-5460`, `5461`), not counting slots in migration. */
function slotCount(ranges: readonly string[]): number {
  let count = 0;
  for (const range of ranges) {
    if (range.startsWith('[')) continue;
    const [from = '', to = from] = range.split('-');
    count += Number(to) - Number(from) + 1;
  }
  return count;
}
