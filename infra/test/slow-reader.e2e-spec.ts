import { slowReaderScenario } from '../../loadtest/bench/scenarios/slow-reader';

describe('slow-reader attack (short)', () => {
  it('cuts every paused reader with 1013 and reports it gone while the members keep receiving', async () => {
    const report = await slowReaderScenario({
      attackSeconds: 25,
      idleSeconds: 3,
      attackers: 3,
      members: 4,
      rate: 250,
      bodyBytes: 4000,
    });
    expect(report.attackerSockets).toBeGreaterThan(0);
    expect(report.cuts1013).toBeGreaterThan(0);
    expect(report.reportedGone).toBeGreaterThan(0);
    // Every message reached every member, attack or not.
    expect(report.received).toBe(report.sent * 4);
  }, 120_000);
});
