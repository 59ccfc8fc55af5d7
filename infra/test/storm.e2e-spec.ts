import { count, reconnectStorm } from '@taco/harness';

describe('reconnect storm (small: 2 replicas behind nginx, 100 clients)', () => {
  it('brings back every client of a replica killed with SIGKILL, nothing acknowledged lost or shown twice', async () => {
    const { figures, probeReport } = await reconnectStorm({
      clients: 100,
      rate: 4,
      warmupSeconds: 3,
      processes: 1,
      bodyBytes: 100,
    });
    expect({
      cameBack: figures.everyoneBackSeconds !== null,
      gaveUp: figures.gaveUp,
      lost: figures.lost,
      shownTwice: figures.shownTwice,
      membersMissingSome: figures.membersMissingSome,
    }).toEqual({ cameBack: true, gaveUp: 0, lost: 0, shownTwice: 0, membersMissingSome: 0 });
    // The kill really cut clients off while messages flowed, and they resumed with tickets alone.
    expect(figures.disconnected).toBeGreaterThan(0);
    expect(figures.reconnects).toBeGreaterThanOrEqual(figures.disconnected);
    expect(figures.acknowledged).toBeGreaterThan(0);
    expect(figures.credentialCallsPerReconnect).toBe(0);
    // The survivor's own members (the probe's, straight to it) kept getting messages throughout.
    expect(count(probeReport.bystanders.storm)).toBeGreaterThan(0);
  }, 240_000);
});
