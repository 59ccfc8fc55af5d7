import { connectCostScenario } from '../bench/scenarios/connect-cost';

describe('npm run bench -- --only connectCost (small)', () => {
  it('connects every socket and joins with one Redis round trip for the join, no separate PUBLISH', async () => {
    const report = await connectCostScenario({ sockets: 40, members: 5 });
    expect(report.failed).toBe(0);
    expect(report.replicaCpuMsPerConnect).toBeGreaterThan(0);
    const joining = report.traced['joining others'];
    // Credentials: the IP budget, and the room's check (its settings, removals and the names
    // present, one script); the socket: the connection count; the join: the presence script,
    // which announces the newcomer itself, and the room's settings (protocol/README.md §6.9),
    // sent in the same write.
    expect(joining?.roundTrips).toEqual(['evalsha', 'evalsha', 'evalsha', 'evalsha', 'evalsha']);
    expect(report.traced['first in its room']?.roundTrips).toContain('subscribe');
  }, 120_000);
});
