import { isFailingOver } from './cluster-state';

/** `CLUSTER NODES` of three masters (a, b, c) with one replica each (ra, rb, rc). */
function clusterNodes(flags: Partial<Record<string, string>> = {}): string {
  const line = (id: string, port: number, role: string, master: string, slots: string) =>
    [
      id,
      `127.0.0.1:${port}@${port + 10000}`,
      flags[id] ?? role,
      master,
      '0',
      '0',
      '1',
      'connected',
      slots,
    ]
      .join(' ')
      .trim();
  return [
    line('a', 7000, 'master', '-', '0-5460'),
    line('b', 7001, 'master', '-', '5461-10922'),
    line('c', 7002, 'master', '-', '10923-16383'),
    line('ra', 7003, 'slave', 'a', ''),
    line('rb', 7004, 'slave', 'b', ''),
    line('rc', 7005, 'slave', 'c', ''),
  ].join('\n');
}

describe('isFailingOver', () => {
  it('is true while every failed master has a live replica to take over', () => {
    expect(isFailingOver(clusterNodes({ a: 'master,fail' }))).toBe(true);
    expect(isFailingOver(clusterNodes({ a: 'master,fail', b: 'master,fail' }))).toBe(true);
  });

  it('is false when a master was lost with its replica: its slots have no one to serve them', () => {
    expect(isFailingOver(clusterNodes({ a: 'master,fail', ra: 'slave,fail' }))).toBe(false);
    // A replica the node suspects too is no candidate to count on.
    expect(isFailingOver(clusterNodes({ a: 'master,fail', ra: 'slave,fail?' }))).toBe(false);
    expect(
      isFailingOver(clusterNodes({ a: 'master,fail', b: 'master,fail', rb: 'slave,fail' })),
    ).toBe(false);
  });

  it('is true just after a failover, while the node has not updated its own state yet', () => {
    // The failed master lost its slots to its promoted replica; the node still says fail.
    const promoted = clusterNodes({ a: 'master,fail', ra: 'master' })
      .replace(/^(a .*connected) 0-5460$/m, '$1')
      .replace(/^(ra .*connected)$/m, '$1 0-5460');
    expect(isFailingOver(promoted)).toBe(true);
    expect(isFailingOver(clusterNodes())).toBe(true);
  });

  it('is false when a slot has no master, or a master that serves slots is suspected', () => {
    expect(isFailingOver(clusterNodes().replace(' 10923-16383', ' 10923-16000'))).toBe(false);
    // This node may be on the minority side of a split: nothing to count on.
    expect(isFailingOver(clusterNodes({ a: 'master,fail?' }))).toBe(false);
    expect(isFailingOver('')).toBe(false);
  });

  it('counts single slots and leaves out slots being migrated', () => {
    const nodes = clusterNodes()
      .replace(' 0-5460', ' 0-5459 5460 [5460->-b]')
      .replace(' 5461-10922', ' 5461-10922 [5460-<-a]');
    expect(isFailingOver(nodes)).toBe(true);
  });
});
