import { RedisChatBus } from '../../src/bus/redis/redis-chat-bus';
import { RedisConnections } from '../../src/bus/redis/redis-connections';
import { RedisPresenceStore } from '../../src/bus/redis/redis-presence.store';
import { ReplicaLease } from '../../src/bus/redis/replica-lease';
import { type Redis } from 'ioredis';
import { roomKeys } from '../../src/bus/redis/redis-keys';
import { RedisServer } from '../support/redis-server';
import { until } from '../support/until';
import { describeChatBusContract } from './chat-bus.contract';
import { describePresenceContract } from './presence.contract';
import { describeSharedPortContracts } from './redis-storage.contracts';

const HISTORY_MAX = 5;
let server: RedisServer;
/** A client of the server for the shared ports' contracts. */
let client: Redis;

beforeAll(async () => {
  server = await RedisServer.start();
  client = server.client();
});
afterAll(async () => {
  client?.disconnect();
  await server.dispose();
});

async function connections(replica = 'contract'): Promise<RedisConnections> {
  const redis = new RedisConnections(server.url, replica);
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

/**
 * A bus on connections of its own and a plain client, new for each test of the block that calls
 * this: `bus()` and `plain()` give the current test's.
 */
function busPerTest(): { bus: () => RedisChatBus; plain: () => Redis } {
  let redis: RedisConnections | undefined;
  let bus: RedisChatBus | undefined;
  let plain: Redis | undefined;
  beforeEach(async () => {
    redis = await connections();
    bus = new RedisChatBus(redis, { historyMax: HISTORY_MAX, roomTtlSeconds: 60 });
    plain = server.client();
  });
  afterEach(async () => {
    plain?.disconnect();
    await redis?.close();
  });
  const current = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('Only inside a test');
    return value;
  };
  return { bus: () => current(bus), plain: () => current(plain) };
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
  const { bus, plain } = busPerTest();

  it('keeps the epoch in its own hash-tagged key with the room TTL', async () => {
    const { epoch } = await bus().append('epoch-ttl', { sender: 'Ann', body: 'a', timestamp: 1 });
    const keys = roomKeys('epoch-ttl');
    expect(await plain().get(keys.epoch)).toBe(epoch);
    for (const key of [keys.seq, keys.log, keys.epoch]) {
      expect(await plain().ttl(key)).toBeGreaterThan(50);
    }
  });

  it('gives an epoch read by a first reader a TTL too', async () => {
    await bus().history('epoch-read', { count: 5 });
    const keys = roomKeys('epoch-read');
    expect(await plain().ttl(keys.epoch)).toBeGreaterThan(50);
    expect(await plain().ttl(keys.seq)).toBeGreaterThan(50);
  });

  it.each([
    ['only the seq key', (keys: ReturnType<typeof roomKeys>) => [keys.seq]],
    ['only the epoch key', (keys: ReturnType<typeof roomKeys>) => [keys.epoch]],
  ])('starts a new epoch when Redis lost %s', async (_label, lost) => {
    const room = `epoch-lost-${Math.random()}`;
    const draft = { sender: 'Ann', body: 'a', timestamp: 1 };
    const before = await bus().append(room, draft);
    await plain().del(...lost(roomKeys(room)));
    const after = await bus().append(room, draft);
    expect(after.epoch).not.toBe(before.epoch);
    const page = await bus().history(room, { count: 10 });
    expect(page.epoch).toBe(after.epoch);
    // Whatever is stored belongs to the new epoch's numbering.
    expect(page.messages.at(-1)?.seq).toBe(after.seq);
    expect(page.messages.map((m) => m.seq)).toEqual(
      [...page.messages.map((m) => m.seq)].sort((a, b) => a - b),
    );
  });
});

describe('RedisChatBus, the messages of one turn', () => {
  const { bus, plain } = busPerTest();

  const draft = (body: string) => ({ sender: 'Ann', body, timestamp: 1 });

  async function appendScriptCalls(): Promise<number> {
    const stats = await plain().info('commandstats');
    return Number(/cmdstat_evalsha:calls=(\d+)/.exec(stats)?.[1] ?? 0);
  }

  it('are stored in one script call, each numbered in its own room and in order', async () => {
    const [first, second] = [`turn-a-${Math.random()}`, `turn-b-${Math.random()}`];
    await bus().append(first, draft('warm-up')); // the script is loaded; later calls are EVALSHA
    const calls = await appendScriptCalls();
    const stored = await Promise.all([
      bus().append(first, draft('one')),
      bus().append(second, draft('two')),
      bus().append(first, draft('three')),
    ]);
    expect(stored.map(({ body, seq }) => [body, seq])).toEqual([
      ['one', 2],
      ['two', 1],
      ['three', 3],
    ]);
    expect(await appendScriptCalls()).toBe(calls + 1);
    const page = await bus().history(first, { count: 10 });
    expect(page.messages.map((m) => m.body)).toEqual(['warm-up', 'one', 'three']);
  });

  it('fail one by one: a room Redis cannot store to refuses only its own message', async () => {
    const [good, bad] = [`turn-good-${Math.random()}`, `turn-bad-${Math.random()}`];
    await plain().rpush(roomKeys(bad).seq, 'not a counter');
    const outcomes = await Promise.allSettled([
      bus().append(good, draft('before')),
      bus().append(bad, draft('lost')),
      bus().append(good, draft('after')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/WRONGTYPE/);
    const page = await bus().history(good, { count: 10 });
    expect(page.messages.map((m) => m.body)).toEqual(['before', 'after']);
  });

  it('are stored before a clear sent after them in the same turn', async () => {
    const room = `turn-clear-${Math.random()}`;
    await bus().clear(room, 'Ann'); // the script is loaded: the next clear goes out at once
    const sent = bus().append(room, draft('gone with the clear'));
    await Promise.all([sent, bus().clear(room, 'Ann')]);
    expect((await bus().history(room, { count: 10 })).messages).toEqual([]);
  });
});

describePresenceContract('redis', async () => {
  const redis = await connections();
  return {
    store: new RedisPresenceStore(redis, new ReplicaLease(redis, 20_000)),
    bus: new RedisChatBus(redis, { historyMax: HISTORY_MAX, roomTtlSeconds: 60 }),
    dispose: () => redis.close(),
  };
});

describeSharedPortContracts('redis', connections, () => client);
