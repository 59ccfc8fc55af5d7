/**
 * Runs the Redis round-trip measurement (`bench/redis-round-trip.ts`) at a tiny size against a
 * real redis-server, for both servers: every message comes back, and each gets a CPU figure. No
 * timing assertions.
 */
import { measure, startRedis } from '../bench/redis-round-trip';

describe('redis round trip', () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.stop());

  it.each(['taco', 'raw'] as const)('measures %s, every message coming back', async (server) => {
    const cost = await measure(server, redis.url, 50);
    expect(cost).toMatchObject({ server, messages: 50 });
    expect(Number.isFinite(cost.userMicros)).toBe(true);
    expect(cost.userMicros + cost.systemMicros).toBeGreaterThan(0);
  });
});
