import { stormScenario } from '../../loadtest/bench/scenarios/storm';

describe('reconnect storm (small: 2 replicas behind nginx, 100 clients)', () => {
  it('brings back every client of a replica killed with SIGKILL, nothing acknowledged lost or shown twice', async () => {
    const report = await stormScenario({
      clients: 100,
      rate: 4,
      warmupSeconds: 3,
      processes: 1,
      bodyBytes: 100,
    });
    expect({
      cameBack: report.everyoneBackSeconds !== null,
      gaveUp: report.gaveUp,
      lost: report.lost,
      shownTwice: report.shownTwice,
      membersMissingSome: report.membersMissingSome,
    }).toEqual({ cameBack: true, gaveUp: 0, lost: 0, shownTwice: 0, membersMissingSome: 0 });
    // The kill really cut clients off while messages flowed, and they resumed with tickets alone.
    expect(report.disconnected).toBeGreaterThan(0);
    expect(report.reconnects).toBeGreaterThanOrEqual(report.disconnected);
    expect(report.acknowledged).toBeGreaterThan(0);
    expect(report.credentialCallsPerReconnect).toBe(0);
    // The survivor's own members (the probe's, straight to it) kept getting messages throughout.
    expect(report.probeMessagesStorm).toBeGreaterThan(0);
  }, 240_000);
});
