import { RedisChatBus } from '../../src/bus/redis/redis-chat-bus';
import { RedisConnections } from '../../src/bus/redis/redis-connections';
import { RedisPresenceStore } from '../../src/bus/redis/redis-presence.store';
import { RedisServer } from '../support/redis-server';
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

describeChatBusContract('redis', async () => {
  const redis = await connections();
  return {
    bus: new RedisChatBus(redis, { historyMax: HISTORY_MAX, roomTtlSeconds: 60 }),
    historyMax: HISTORY_MAX,
    dispose: () => redis.close(),
  };
});

describePresenceContract('redis', async () => {
  const redis = await connections();
  return { store: new RedisPresenceStore(redis, 20_000), dispose: () => redis.close() };
});
