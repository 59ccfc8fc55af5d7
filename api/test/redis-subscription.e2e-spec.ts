import { FrameType } from '@taco/protocol';
import { type Redis } from 'ioredis';
import { roomKeys } from '../src/bus/redis/redis-keys';
import { MetricsService } from '../src/metrics/metrics.service';
import { RedisServer } from './support/redis-server';
import { repeated, storedMessages, watchMessages } from './support/room-traffic';
import { redisOf, startTestApp, type TestApp } from './support/test-app';
import { until } from './support/until';
import { type RawClient } from '@taco/harness';

const CHECK_MS = 300;

async function resubscribes(app: TestApp, cause: string): Promise<number> {
  const { values } = await app.app.get(MetricsService).resubscribes.get();
  return values.find((value) => value.labels.cause === cause)?.value ?? 0;
}

/**
 * Ann (replica one) writes a message every 10 ms while `disturb` runs against Bob's replica (two);
 * then both must have seen every stored message, and none twice.
 */
async function underTraffic(
  one: TestApp,
  two: TestApp,
  room: string,
  disturb: () => Promise<void>,
): Promise<void> {
  const ann = await one.join(room, 'Ann');
  const bob = await two.join(room, 'Bob');
  const seenByAnn = watchMessages(ann, 'Ann');
  const seenByBob = watchMessages(bob, 'Bob');
  let sending = true;
  const traffic = (async () => {
    for (let i = 0; sending && i < 1000; i++) {
      ann.send({ type: FrameType.Message, body: `ann ${i}`, client_id: `a${i}` });
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  await until(() => seenByBob.seqs.length >= 10, 10_000);
  await disturb();
  const disturbedAt = seenByAnn.acked.size;
  await until(() => seenByAnn.acked.size >= disturbedAt + 50, 10_000);
  sending = false;
  await traffic;
  const stored = await storedMessages(ann);
  const all = [...stored.keys()];
  // History replies carry the contract's fields only.
  expect([...stored.values()].filter((message) => 'client_id' in message)).toEqual([]);
  await until(
    () => all.every((seq) => seenByAnn.seqs.includes(seq) && seenByBob.seqs.includes(seq)),
    10_000,
    50,
  );
  for (const seen of [seenByAnn, seenByBob]) expect(repeated(seen.copies)).toEqual([]);
  // Ann's own copies carry their client_id, also those a gap fill delivered: her client can
  // match every one with the message it sent. So do Bob's copies of them, gap fill or not.
  expect(seenByAnn.acked.size).toBe(all.length);
  expect(seenByAnn.withoutClientId).toEqual([]);
  expect(seenByBob.withoutClientId).toEqual([]);
  await closeAll(ann, bob);
}

async function closeAll(...clients: RawClient[]): Promise<void> {
  await Promise.all(clients.map((client) => client.close()));
}

describe('Room subscriptions that Redis dropped', () => {
  let redis: RedisServer;
  let plain: Redis;
  let one: TestApp;
  let two: TestApp;

  beforeAll(async () => {
    redis = await RedisServer.start();
    plain = redis.client();
    const shared = {
      redisUrl: redis.url,
      subscriptionCheckMs: CHECK_MS,
      messageBurst: 1000,
      messagesPerSecond: 1000,
    };
    one = await startTestApp({ ...shared, replicaId: 'one' });
    two = await startTestApp({ ...shared, replicaId: 'two' });
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    plain?.disconnect();
    await redis?.dispose();
  });

  it('fills the gap when the subscriber connections are killed under traffic (CLIENT KILL TYPE pubsub)', async () => {
    const before = await resubscribes(two, 'renewed');
    await underTraffic(one, two, 'killed-subscriber', async () => {
      expect(await plain.call('CLIENT', 'KILL', 'TYPE', 'pubsub')).toBeGreaterThanOrEqual(2);
    });
    expect(await resubscribes(two, 'renewed')).toBeGreaterThan(before);
  }, 30_000);

  it('finds a subscription gone without a word, subscribes again and delivers what it missed', async () => {
    const room = 'silently-dropped';
    const redisOfTwo = redisOf(two);
    const before = await resubscribes(two, 'lost');
    await underTraffic(one, two, room, async () => {
      // Redis forgets replica two's subscription; its client is told nothing.
      await redisOfTwo.unsubscribe(roomKeys(room).channel);
      expect(await plain.pubsub('NUMSUB', roomKeys(room).channel)).toEqual([
        roomKeys(room).channel,
        1,
      ]);
    });
    expect(await resubscribes(two, 'lost')).toBeGreaterThan(before);
  }, 30_000);

  it('subscribes a room again when its connection is renewed while a renewal of the room is still filling its gap', async () => {
    // Replica three never probes: only the renewals bring its subscription back.
    const three = await startTestApp({
      redisUrl: redis.url,
      replicaId: 'three',
      subscriptionCheckMs: 0,
    });
    try {
      const room = 'renewed-twice';
      const channel = roomKeys(room).channel;
      const subscribers = async () => (await plain.pubsub('NUMSUB', channel))[1];
      const ann = await one.join(room, 'Ann');
      const bob = await three.join(room, 'Bob');
      const connections = redisOf(three);
      const killSubscriber = () =>
        plain.call(
          'CLIENT',
          'KILL',
          'ADDR',
          `127.0.0.1:${(connections.subscriber as Redis).stream.localPort}`,
        );
      // Redis holds back scripts (the gap fill's history read among them) for a while; SUBSCRIBE
      // and the connection's handshake still go through.
      await plain.call('CLIENT', 'PAUSE', '2000', 'WRITE');
      await killSubscriber();
      // Subscribed again on the new connection; the renewal now waits on its gap fill.
      await until(async () => (await subscribers()) === 2, 5000, 20);
      await killSubscriber();
      await until(async () => (await subscribers()) === 1, 5000, 20);
      await until(async () => (await subscribers()) === 2, 10_000);
      ann.send({ type: FrameType.Message, body: 'still here', client_id: 'c1' });
      expect(await bob.next((frame) => frame.type === FrameType.Message, 3000)).toMatchObject({
        body: 'still here',
      });
      await closeAll(ann, bob);
    } finally {
      await three.close();
    }
  }, 30_000);

  it('probes quiet rooms only now and then, and leaves a working subscription alone', async () => {
    const ann = await two.join('quiet-room', 'Ann');
    const before = await resubscribes(two, 'lost');
    await new Promise((resolve) => setTimeout(resolve, CHECK_MS * 5));
    expect(await resubscribes(two, 'lost')).toBe(before);
    // Probes never reach clients.
    expect((await ann.drain(0)).filter((frame) => frame.type === FrameType.Heartbeat)).toEqual([]);
    await ann.close();
  });
});
