import { type IpRateLimiter } from '../../src/bus/ip-rate-limiter.port';
import { describePerAddressContract, type UnderTest } from './describe-contract';

export interface IpRateLimiterUnderTest extends UnderTest {
  limiter: IpRateLimiter;
  /** Another replica's limiter of the same budget on the same storage; embedded, the same. */
  peer: IpRateLimiter;
  /** Lets `ms` pass for the budgets of `ips`, as their limiter's clock sees it. */
  elapse(ms: number, ips: readonly string[]): Promise<void>;
}

/** The calls per minute the limiters under test are made with. */
export const CALLS_PER_MINUTE = 3;

/** The behaviour every `IpRateLimiter` driver must have (protocol §7.3). */
export function describeIpRateLimiterContract(
  driver: string,
  create: (perMinute: number) => Promise<IpRateLimiterUnderTest>,
): void {
  describePerAddressContract(
    `IpRateLimiter contract: ${driver}`,
    () => create(CALLS_PER_MINUTE),
    (subject) => {
      /** Spends `ip`'s whole budget, asserting every call went ahead. */
      async function spend(limiter: IpRateLimiter, ip: string): Promise<void> {
        for (let i = 0; i < CALLS_PER_MINUTE; i++) expect(await limiter.take(ip)).toBe(0);
      }

      it(`lets ${CALLS_PER_MINUTE} calls of an address through, then says how long to wait`, async () => {
        const { limiter, ip } = subject();
        await spend(limiter, ip);
        const wait = await limiter.take(ip);
        // A budget per minute: the next call is at least a minute's share of one call away.
        expect(wait).toBeGreaterThanOrEqual(60_000 / CALLS_PER_MINUTE - 1000);
        expect(wait).toBeLessThanOrEqual(60_000);
        expect(await limiter.take(ip)).toBeGreaterThan(0);
      });

      it('counts each address apart', async () => {
        const { limiter, ip } = subject();
        await spend(limiter, ip);
        expect(await limiter.take(`${ip}0`)).toBe(0);
      });

      it('keeps refusing until the wait it gave has passed, then lets a call through', async () => {
        const { limiter, elapse, ip } = subject();
        await spend(limiter, ip);
        const wait = await limiter.take(ip);
        await elapse(Math.floor(wait / 2), [ip]);
        const rest = await limiter.take(ip);
        expect(rest).toBeGreaterThan(0);
        expect(rest).toBeLessThanOrEqual(wait);
        await elapse(rest, [ip]);
        expect(await limiter.take(ip)).toBe(0);
      });

      it('has the whole budget again a minute after it was spent', async () => {
        const { limiter, elapse, ip } = subject();
        await spend(limiter, ip);
        expect(await limiter.take(ip)).toBeGreaterThan(0);
        await elapse(60_000, [ip]);
        await spend(limiter, ip);
      });

      it('holds the budget over every replica sharing the storage', async () => {
        const { limiter, peer, ip } = subject();
        expect(await limiter.take(ip)).toBe(0);
        expect(await peer.take(ip)).toBe(0);
        expect(await limiter.take(ip)).toBe(0);
        expect(await peer.take(ip)).toBeGreaterThan(0);
        expect(await limiter.take(ip)).toBeGreaterThan(0);
      });
    },
  );
}
