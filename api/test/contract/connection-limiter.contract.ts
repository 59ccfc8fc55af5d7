import { type ConnectionLimiter } from '../../src/bus/connection-limiter.port';
import { until } from '../support/until';
import { describePerAddressContract, type UnderTest } from './describe-contract';

export interface ConnectionLimiterUnderTest extends UnderTest {
  limiter: ConnectionLimiter;
  /** Another replica's limiter on the same storage; embedded, the same limiter. */
  peer: ConnectionLimiter;
}

/** The cap the limiters under test are made with. */
export const CONNECTION_CAP = 3;

/** The behaviour every `ConnectionLimiter` driver must have (protocol §7.3, open sockets). */
export function describeConnectionLimiterContract(
  driver: string,
  create: (cap: number) => Promise<ConnectionLimiterUnderTest>,
): void {
  describePerAddressContract(
    `ConnectionLimiter contract: ${driver}`,
    () => create(CONNECTION_CAP),
    (subject) => {
      /** Takes every place of `ip`, asserting each was given. */
      async function fill(limiter: ConnectionLimiter, ip: string): Promise<void> {
        for (let i = 0; i < CONNECTION_CAP; i++) expect(await limiter.acquire(ip)).toBe(true);
      }

      it(`lets ${CONNECTION_CAP} connections of an address in and refuses the next`, async () => {
        const { limiter, ip } = subject();
        await fill(limiter, ip);
        expect(await limiter.acquire(ip)).toBe(false);
        expect(await limiter.acquire(ip)).toBe(false);
      });

      it('counts each address apart', async () => {
        const { limiter, ip } = subject();
        await fill(limiter, ip);
        expect(await limiter.acquire(`${ip}0`)).toBe(true);
      });

      it('frees one place on release, and only one', async () => {
        const { limiter, ip } = subject();
        await fill(limiter, ip);
        limiter.release(ip);
        // A shared count is written back in the background: the place is free within moments.
        await until(() => limiter.acquire(ip), 2000);
        expect(await limiter.acquire(ip)).toBe(false);
      });

      it('holds the cap over every replica sharing the storage', async () => {
        const { limiter, peer, ip } = subject();
        expect(await limiter.acquire(ip)).toBe(true);
        expect(await peer.acquire(ip)).toBe(true);
        expect(await limiter.acquire(ip)).toBe(true);
        expect(await peer.acquire(ip)).toBe(false);
        expect(await limiter.acquire(ip)).toBe(false);
        limiter.release(ip);
        await until(() => peer.acquire(ip), 2000);
        expect(await limiter.acquire(ip)).toBe(false);
      });

      it('gives no extra place for releases of places it never gave', async () => {
        const { limiter, ip } = subject();
        limiter.release(ip);
        limiter.release(ip);
        await fill(limiter, ip);
        expect(await limiter.acquire(ip)).toBe(false);
      });
    },
  );
}
