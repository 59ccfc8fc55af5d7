import { type ConnectionLimiter } from '../../src/bus/connection-limiter.port';
import { until } from '../support/until';

export interface ConnectionLimiterUnderTest {
  limiter: ConnectionLimiter;
  /** Another replica's limiter on the same storage; embedded, the same limiter. */
  peer: ConnectionLimiter;
  dispose(): Promise<void>;
}

/** The cap the limiters under test are made with. */
export const CONNECTION_CAP = 3;

/** The behaviour every `ConnectionLimiter` driver must have (protocol §7.3, open sockets). */
export function describeConnectionLimiterContract(
  driver: string,
  create: (cap: number) => Promise<ConnectionLimiterUnderTest>,
): void {
  describe(`ConnectionLimiter contract: ${driver}`, () => {
    let subject: ConnectionLimiterUnderTest;
    let limiter: ConnectionLimiter;
    let counter = 0;
    let ip: string;

    beforeEach(async () => {
      subject = await create(CONNECTION_CAP);
      limiter = subject.limiter;
      counter += 1;
      ip = `198.51.100.${counter}`;
    });
    afterEach(() => subject.dispose());

    /** Takes every place of `address`, asserting each was given. */
    async function fill(address: string): Promise<void> {
      for (let i = 0; i < CONNECTION_CAP; i++) expect(await limiter.acquire(address)).toBe(true);
    }

    it(`lets ${CONNECTION_CAP} connections of an address in and refuses the next`, async () => {
      await fill(ip);
      expect(await limiter.acquire(ip)).toBe(false);
      expect(await limiter.acquire(ip)).toBe(false);
    });

    it('counts each address apart', async () => {
      await fill(ip);
      expect(await limiter.acquire(`${ip}0`)).toBe(true);
    });

    it('frees one place on release, and only one', async () => {
      await fill(ip);
      limiter.release(ip);
      // A shared count is written back in the background: the place is free within moments.
      await until(() => limiter.acquire(ip), 2000);
      expect(await limiter.acquire(ip)).toBe(false);
    });

    it('holds the cap over every replica sharing the storage', async () => {
      expect(await limiter.acquire(ip)).toBe(true);
      expect(await subject.peer.acquire(ip)).toBe(true);
      expect(await limiter.acquire(ip)).toBe(true);
      expect(await subject.peer.acquire(ip)).toBe(false);
      expect(await limiter.acquire(ip)).toBe(false);
      limiter.release(ip);
      await until(() => subject.peer.acquire(ip), 2000);
      expect(await limiter.acquire(ip)).toBe(false);
    });

    it('gives no extra place for releases of places it never gave', async () => {
      limiter.release(ip);
      limiter.release(ip);
      await fill(ip);
      expect(await limiter.acquire(ip)).toBe(false);
    });
  });
}
