import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { SHARED_KEYS } from '../bus/redis/redis-keys';
import { type RedisConnections } from '../bus/redis/redis-connections';
import { TokenBucket } from '../common/token-bucket';

/** A per-client-IP budget of HTTP calls. */
export abstract class IpRateLimiter {
  /** Takes one call from `ip`'s budget: 0 when it may go ahead, else the milliseconds to wait. */
  abstract take(ip: string): Promise<number>;
  /** Stops background work. */
  close(): void {}
}

/**
 * Credential and room-creation calls per client IP (`CREDENTIALS_PER_MINUTE`). The injection
 * token; the driver is an `IpRateLimiter`.
 */
export abstract class CredentialsRateLimiter extends IpRateLimiter {}

/**
 * Ticket, room-name and room-info calls per client IP: a budget of their own, four times the
 * credentials budget, so opening sockets never eats into asking for credentials.
 */
export abstract class LookupRateLimiter extends IpRateLimiter {}

export const LOOKUPS_PER_CREDENTIAL = 4;

const SWEEP_INTERVAL_MS = 60_000;

/** In this process: a token bucket per address refilled over a minute, forgotten once full. */
export class MemoryIpRateLimiter extends IpRateLimiter {
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number,
  ) {
    super();
  }

  take(ip: string): Promise<number> {
    const now = this.now();
    let bucket = this.buckets.get(ip);
    if (!bucket) {
      bucket = new TokenBucket(this.perMinute, this.perMinute / 60, now);
      this.buckets.set(ip, bucket);
    }
    return Promise.resolve(bucket.take(now) ? 0 : bucket.msUntilAvailable(now));
  }

  /** Forgets addresses whose bucket has refilled: they would start full anyway. */
  sweep(): void {
    const now = this.now();
    for (const [ip, bucket] of this.buckets) {
      if (bucket.isFull(now)) this.buckets.delete(ip);
    }
  }

  override close(): void {
    clearInterval(this.sweeper);
  }
}

/**
 * In Redis, so the budget is the same however many replicas share it: `rate-limiter-flexible`'s
 * counter per address and minute (one key, one Lua call). While Redis cannot be reached, each
 * replica falls back to counting in its own memory (the library's insurance limiter): calls stay
 * limited, per replica, and never hang on a Redis that is away.
 */
export class RedisIpRateLimiter extends IpRateLimiter {
  private readonly limiter: RateLimiterRedis;

  constructor(
    private readonly redis: RedisConnections,
    budget: string,
    perMinute: number,
  ) {
    super();
    this.limiter = new RateLimiterRedis({
      storeClient: redis.command,
      keyPrefix: SHARED_KEYS.rateLimitPrefix(budget),
      points: perMinute,
      duration: 60,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({ points: perMinute, duration: 60 }),
    });
  }

  async take(ip: string): Promise<number> {
    try {
      // In this turn's batch of commands: a credential call's name check shares its round trip.
      this.redis.coalesced();
      await this.limiter.consume(ip);
      return 0;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return Math.max(1, rejection.msBeforeNext);
      throw rejection;
    }
  }
}
