import { CloseCode, FrameType } from '@taco/protocol';
import { type Redis } from 'ioredis';
import { RedisConnections } from '../src/bus/redis/redis-connections';
import { SHARED_KEYS } from '../src/bus/redis/redis-keys';
import { RedisTokenSecretStore } from '../src/bus/redis/redis-token-secret.store';
import { TokenSecret } from '../src/rooms/token-secret';
import { RedisServer } from './support/redis-server';
import { startTestApp, TEST_SECRET } from './support/test-app';
import { until } from './support/until';

describe('The token secret of replicas sharing Redis', () => {
  let redis: RedisServer;
  let plain: Redis;

  beforeAll(async () => {
    redis = await RedisServer.start();
    plain = redis.client();
  });
  afterAll(async () => {
    plain.disconnect();
    await redis.dispose();
  });
  beforeEach(() => plain.del(SHARED_KEYS.jwtSecret));

  it('is agreed on through Redis when no JWT_SECRET is set: tokens work on every replica', async () => {
    const shared = { redisUrl: redis.url, jwtSecret: undefined };
    const one = await startTestApp({ ...shared, replicaId: 'one' });
    const two = await startTestApp({ ...shared, replicaId: 'two' });
    try {
      const stored = await plain.get(SHARED_KEYS.jwtSecret);
      expect(Buffer.byteLength(stored ?? '')).toBeGreaterThanOrEqual(32);
      const token = await one.token('secret-room', 'Ann');
      const ann = two.connect('secret-room', token);
      await ann.next((frame) => frame.type === FrameType.Presence && frame.sender === 'Ann');
      await ann.close();
    } finally {
      await one.close();
      await two.close();
    }
  });

  it("lets an operator's JWT_SECRET win: it is neither stored nor replaced", async () => {
    const shared = await startTestApp({ redisUrl: redis.url, jwtSecret: undefined });
    const own = await startTestApp({ redisUrl: redis.url, jwtSecret: TEST_SECRET });
    try {
      expect(await plain.get(SHARED_KEYS.jwtSecret)).not.toBe(TEST_SECRET);
      const token = await own.token('secret-room', 'Bob');
      const bob = shared.connect('secret-room', token);
      expect((await bob.closed).code).toBe(CloseCode.Unauthorized);
    } finally {
      await shared.close();
      await own.close();
    }
  });

  it('is stored again when Redis lost it, and followed when another one is there', async () => {
    const connections = new RedisConnections(redis.url, 'secret-test');
    const store = new RedisTokenSecretStore(connections);
    const secret = await TokenSecret.shared(store, 5000);
    try {
      const first = secret.key.export().toString();
      expect(await plain.get(SHARED_KEYS.jwtSecret)).toBe(first);
      secret.keepAgreed(store, 50);

      await plain.del(SHARED_KEYS.jwtSecret);
      await until(async () => (await plain.get(SHARED_KEYS.jwtSecret)) === first);

      const other = 'another-replica-secret-that-is-long-enough-0123456789';
      await plain.set(SHARED_KEYS.jwtSecret, other);
      await until(() => secret.key.export().toString() === other);
    } finally {
      secret.stop();
      await connections.close();
    }
  });

  it('stops the boot with a clear error when Redis cannot be reached to agree on one', async () => {
    const connections = new RedisConnections('redis://127.0.0.1:1', 'secret-test');
    try {
      await expect(TokenSecret.shared(new RedisTokenSecretStore(connections), 300)).rejects.toThrow(
        /No JWT_SECRET set and Redis could not be reached within 0.3 s/,
      );
    } finally {
      await connections.close();
    }
  });
});
