import { RedisChatBus } from '../../src/bus/redis/redis-chat-bus';
import { RedisConnections } from '../../src/bus/redis/redis-connections';
import { RedisPresenceStore } from '../../src/bus/redis/redis-presence.store';
import { type Redis } from 'ioredis';
import { roomKeys } from '../../src/bus/redis/redis-keys';
import { RedisServer } from '../support/redis-server';
import { until } from '../support/until';
import { describeChatBusContract } from './chat-bus.contract';
import { describePresenceContract } from './presence.contract';

const HISTORY_MAX = 5;
let server: RedisServer;

beforeAll(async () => {
  server = await RedisServer.start();
});
afterAll(() => server.dispose());

async function connections(): Promise<RedisConnections> {
  const redis = new RedisConnections(server.url, 'contract');
  if (!(await redis.waitUntilReady(5000))) throw new Error('Redis did not become ready');
  return redis;
}

/** Lets the room's keys expire, as ROOM_TTL would. */
async function expireRoom(room: string): Promise<void> {
  const plain = server.client();
  try {
    const keys = Object.values(roomKeys(room));
    for (const key of keys) await plain.pexpire(key, 1);
    await until(async () => (await plain.exists(...keys)) === 0, 2000, 5);
  } finally {
    plain.disconnect();
  }
}

describeChatBusContract('redis', async () => {
  const redis = await connections();
  return {
    bus: new RedisChatBus(redis, { historyMax: HISTORY_MAX, roomTtlSeconds: 60 }),
    historyMax: HISTORY_MAX,
    expireRoom,
    dispose: () => redis.close(),
  };
});

describe('RedisChatBus epoch keys', () => {
  let redis: RedisConnections;
  let bus: RedisChatBus;
  let plain: Redis;
  beforeEach(async () => {
    redis = await connections();
    bus = new RedisChatBus(redis, { historyMax: HISTORY_MAX, roomTtlSeconds: 60 });
    plain = server.client();
  });
  afterEach(async () => {
    plain.disconnect();
    await redis.close();
  });

  it('keeps the epoch in its own hash-tagged key with the room TTL', async () => {
    const { epoch } = await bus.append('epoch-ttl', { sender: 'Ann', body: 'a', timestamp: 1 });
    const keys = roomKeys('epoch-ttl');
    expect(await plain.get(keys.epoch)).toBe(epoch);
    for (const key of [keys.seq, keys.log, keys.epoch]) {
      expect(await plain.ttl(key)).toBeGreaterThan(50);
    }
  });

  it('gives an epoch read by a first reader a TTL too', async () => {
    await bus.history('epoch-read', { count: 5 });
    const keys = roomKeys('epoch-read');
    expect(await plain.ttl(keys.epoch)).toBeGreaterThan(50);
    expect(await plain.ttl(keys.seq)).toBeGreaterThan(50);
  });

  it.each([
    ['only the seq key', (keys: ReturnType<typeof roomKeys>) => [keys.seq]],
    ['only the epoch key', (keys: ReturnType<typeof roomKeys>) => [keys.epoch]],
  ])('starts a new epoch when Redis lost %s', async (_label, lost) => {
    const room = `epoch-lost-${Math.random()}`;
    const draft = { sender: 'Ann', body: 'a', timestamp: 1 };
    const before = await bus.append(room, draft);
    await plain.del(...lost(roomKeys(room)));
    const after = await bus.append(room, draft);
    expect(after.epoch).not.toBe(before.epoch);
    const page = await bus.history(room, { count: 10 });
    expect(page.epoch).toBe(after.epoch);
    // Whatever is stored belongs to the new epoch's numbering.
    expect(page.messages.at(-1)?.seq).toBe(after.seq);
    expect(page.messages.map((m) => m.seq)).toEqual(
      [...page.messages.map((m) => m.seq)].sort((a, b) => a - b),
    );
  });
});

describePresenceContract('redis', async () => {
  const redis = await connections();
  return {
    store: new RedisPresenceStore(redis, 20_000),
    bus: new RedisChatBus(redis, { historyMax: HISTORY_MAX, roomTtlSeconds: 60 }),
    dispose: () => redis.close(),
  };
});
