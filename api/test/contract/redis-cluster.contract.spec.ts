import { Cluster } from 'ioredis';
import { type RedisCluster, startRedisCluster } from '@taco/harness';
import { RedisChatBus } from '../../src/bus/redis/redis-chat-bus';
import { RedisConnections } from '../../src/bus/redis/redis-connections';
import { roomKeys } from '../../src/bus/redis/redis-keys';
import { RedisPresenceStore } from '../../src/bus/redis/redis-presence.store';
import { ReplicaLease } from '../../src/bus/redis/replica-lease';
import { until } from '../support/until';
import { describeChatBusContract } from './chat-bus.contract';
import { describePresenceContract } from './presence.contract';
import { describeSharedPortContracts } from './redis-storage.contracts';

/** The Redis driver's contract again, on a local Redis Cluster: 3 masters, a replica each. */

const HISTORY_MAX = 5;
let cluster: RedisCluster;
let plain: Cluster;

beforeAll(async () => {
  cluster = await startRedisCluster();
  plain = new Cluster(cluster.nodes.map(({ port }) => ({ host: '127.0.0.1', port })));
}, 60_000);
afterAll(async () => {
  plain?.disconnect();
  await cluster?.stop();
});

async function connections(replica: string): Promise<RedisConnections> {
  const clusterNodes = cluster.nodes.map(({ port }) => ({ host: '127.0.0.1', port }));
  const redis = new RedisConnections({ clusterNodes }, replica);
  if (!(await redis.waitUntilReady(10_000))) throw new Error('The cluster did not become ready');
  return redis;
}

/** Lets the room's keys expire, as ROOM_TTL would. */
async function expireRoom(room: string): Promise<void> {
  const { channel: _channel, ...keys } = roomKeys(room);
  for (const key of Object.values(keys)) await plain.pexpire(key, 1);
  await until(
    async () =>
      (await Promise.all(Object.values(keys).map((key) => plain.exists(key)))).every(
        (exists) => exists === 0,
      ),
    2000,
    5,
  );
}

describeChatBusContract('redis cluster', async () => {
  const [one, two] = await Promise.all([connections('one'), connections('two')]);
  const options = { historyMax: HISTORY_MAX, roomTtlSeconds: 60 };
  return {
    bus: new RedisChatBus(one, options),
    peer: new RedisChatBus(two, options),
    historyMax: HISTORY_MAX,
    expireRoom,
    dispose: async () => {
      await one.close();
      await two.close();
    },
  };
});

describePresenceContract('redis cluster', async () => {
  const redis = await connections('presence');
  return {
    store: new RedisPresenceStore(redis, new ReplicaLease(redis, 20_000)),
    bus: new RedisChatBus(redis, { historyMax: HISTORY_MAX, roomTtlSeconds: 60 }),
    dispose: () => redis.close(),
  };
});

describeSharedPortContracts('redis cluster', connections, () => plain);

describe('Room channels on a Redis Cluster', () => {
  it('are shard channels on the shard that owns the room, never classic ones', async () => {
    const redis = await connections('channels');
    const bus = new RedisChatBus(redis, { historyMax: HISTORY_MAX, roomTtlSeconds: 60 });
    const seen: string[] = [];
    bus.onDelivery((room, event) => seen.push(`${room}:${event.payload.toString()}`));
    try {
      const room = 'shard-check';
      await bus.subscribe(room);
      const owner = await cluster.ownerOf(roomKeys(room).log);
      const channel = roomKeys(room).channel;
      expect(await cluster.cli(owner.port, 'pubsub', 'shardnumsub', channel)).toBe(`${channel}\n1`);
      for (const node of cluster.nodes) {
        expect(await cluster.cli(node.port, 'pubsub', 'numsub', channel)).toBe(`${channel}\n0`);
      }
      const stored = await bus.append(room, { sender: 'Ann', body: 'hello', timestamp: 1 });
      await until(() => seen.length === 1);
      expect(seen[0]).toContain('"body":"hello"');
      expect(seen[0]).toContain(`"seq":${stored.seq}`);
      await bus.unsubscribe(room);
      expect(await cluster.cli(owner.port, 'pubsub', 'shardnumsub', channel)).toBe(`${channel}\n0`);
    } finally {
      await redis.close();
    }
  });

  // 30 s: finding five rooms per master asks redis-cli twice per room, seconds on a loaded machine.
  it('are probed through each master nothing came through from, one room there', async () => {
    const redis = await connections('probes');
    const checkMs = 200;
    const bus = new RedisChatBus(redis, {
      historyMax: HISTORY_MAX,
      roomTtlSeconds: 60,
      subscriptionCheckMs: checkMs,
    });
    /** `SPUBLISH` calls each master has served. */
    const spublishes = async (ports: number[]) =>
      Promise.all(
        ports.map(async (port) => {
          const stats = await cluster.cli(port, 'info', 'commandstats');
          return Number(/^cmdstat_spublish:calls=(\d+)/m.exec(stats)?.[1] ?? 0);
        }),
      );
    try {
      // Five quiet rooms on each master.
      const rooms = new Map<number, string[]>();
      for (let i = 0; i < 500 && [...rooms.values()].filter((r) => r.length >= 5).length < 3; i++) {
        const room = `probed-${i}`;
        const { port } = await cluster.ownerOf(roomKeys(room).log);
        const held = rooms.get(port) ?? [];
        if (held.length < 5) rooms.set(port, [...held, room]);
      }
      for (const room of [...rooms.values()].flat()) await bus.subscribe(room);
      const masters = [...rooms.keys()];
      expect(masters).toHaveLength(3);
      const before = await spublishes(masters);
      await new Promise((resolve) => setTimeout(resolve, checkMs * 10));
      const after = await spublishes(masters);
      // Every master is probed, about once a check, however many rooms it has (not five a check).
      const probes = after.map((count, i) => count - (before[i] ?? 0));
      for (const count of probes) {
        expect(count).toBeGreaterThan(0);
        expect(count).toBeLessThanOrEqual(11);
      }
    } finally {
      bus.stop();
      await redis.close();
    }
  }, 30_000);
});
