import { runChaos } from '@taco/harness';

describe('npm run chaos (short)', () => {
  it('survives every fault and abuse scenario with nothing acknowledged lost or shown twice', async () => {
    const report = await runChaos({ short: true });
    const byName = new Map(report.results.map((result) => [result.scenario, result]));
    expect([...byName.keys()]).toEqual([
      'fuzz',
      'replica SIGKILL',
      'replica SIGTERM drain',
      'Redis restart (AOF)',
      'Redis down',
      'Redis paused',
      'client flood',
      'slow consumer',
      'Redis master SIGKILL',
      'Redis slot move',
    ]);
    for (const result of report.results) {
      expect({
        scenario: result.scenario,
        crashes: result.crashes,
        missingAcked: result.missingAcked,
        refusedStored: result.refusedStored,
        duplicatesShown: result.duplicatesShown,
      }).toEqual({
        scenario: result.scenario,
        crashes: 0,
        missingAcked: 0,
        refusedStored: 0,
        duplicatesShown: 0,
      });
    }
    // Real traffic went through each fault, and the clients of stopped replicas came back.
    expect(byName.get('replica SIGKILL')?.acked).toBeGreaterThan(0);
    expect(byName.get('replica SIGKILL')?.reconnects).toBeGreaterThan(0);
    expect(byName.get('replica SIGTERM drain')?.reconnects).toBeGreaterThan(0);
    expect(byName.get('Redis down')?.refused).toBeGreaterThan(0);
    // Messages sent into the pause were acknowledged once Redis went on, none refused.
    expect(byName.get('Redis paused')?.refused).toBe(0);
    expect(byName.get('Redis paused')?.acked).toBeGreaterThan(0);
    expect(byName.get('Redis master SIGKILL')?.acked).toBeGreaterThan(0);
    expect(byName.get('Redis slot move')?.acked).toBeGreaterThan(0);
    expect(report.passed).toBe(true);
  }, 300_000);
});
