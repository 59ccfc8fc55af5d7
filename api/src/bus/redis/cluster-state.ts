/**
 * Whether a Redis Cluster that says it is down (`cluster_state:fail`) is only failing over: every
 * master that failed while serving slots still has a replica that has not failed, which is about
 * to take over (within the cluster's node timeout and an election). Read from `CLUSTER NODES`
 * (`<id> <address> <flags> <master id> <ping> <pong> <epoch> <link> <slots>…` per line). A master
 * lost together with its replicas leaves its slots unserved: the cluster refuses every command
 * until an operator brings one back.
 */
export function isFailingOver(clusterNodes: string): boolean {
  const lines = clusterNodes
    .split('\n')
    .map((line) => line.trim().split(' '))
    .filter((fields) => fields.length >= 8);
  const flagsOf = (fields: string[]) => (fields[2] ?? '').split(',');
  const failedMasters = lines.filter((fields) => {
    const flags = flagsOf(fields);
    return flags.includes('master') && flags.includes('fail') && fields.length > 8;
  });
  if (failedMasters.length === 0) return false;
  return failedMasters.every(([masterId]) =>
    lines.some((fields) => {
      const flags = flagsOf(fields);
      return (
        flags.includes('slave') &&
        !flags.includes('fail') &&
        !flags.includes('fail?') &&
        fields[3] === masterId
      );
    }),
  );
}
