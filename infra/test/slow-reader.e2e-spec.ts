import { SCENARIO_ENV, slowReaderAttack, startCluster } from '@taco/harness';

describe('slow-reader attack (short)', () => {
  it('cuts every paused reader with 1013 and reports it gone while the members keep receiving', async () => {
    const cluster = await startCluster({ replicas: 1, env: SCENARIO_ENV, output: 'quiet' });
    try {
      const replica = cluster.replicas[0];
      if (!replica) throw new Error('no replica');
      const figures = await slowReaderAttack(replica, 'slow-reader-room', {
        attackSeconds: 25,
        idleSeconds: 3,
        attackers: 3,
        members: 4,
        rate: 250,
        bodyBytes: 4000,
      });
      expect(figures.attackerSockets).toBeGreaterThan(0);
      expect(figures.cuts1013).toBeGreaterThan(0);
      expect(figures.openToGoneMs.length).toBeGreaterThan(0);
      // Every message reached every member, attack or not.
      expect(figures.received).toBe(figures.sent * 4);
    } finally {
      await cluster.stop();
    }
  }, 120_000);
});
