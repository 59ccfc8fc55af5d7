import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { IpRateLimiter } from '../ip-rate-limiter.port';
import { type RedisConnections } from './redis-connections';
import { SHARED_KEYS } from './redis-keys';

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
