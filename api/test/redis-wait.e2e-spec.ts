import { ApiPath, FrameType, type ServerFrame, type ServerHistoryFrame } from '@taco/protocol';
import { type Redis } from 'ioredis';
import { roomKeys } from '../src/bus/redis/redis-keys';
import { parsePrometheusText } from './support/prometheus-text';
import { RedisServer } from './support/redis-server';
import { redisOf, startTestApp, type TestApp } from './support/test-app';
import { until } from './support/until';
import { isError, isHistory, isLive } from '@taco/harness';

const WAIT_TIMEOUT_MS = 1500;

/** Makes `replica` a replica of `master` and waits until it holds the master's data. */
async function replicate(replica: RedisServer, master: RedisServer): Promise<void> {
  const client = replica.client();
  try {
    await client.replicaof('127.0.0.1', master.port);
    await until(async () => {
      const info = await client.info('replication');
      return info.includes('master_link_status:up') && info.includes('master_sync_in_progress:0');
    }, 15_000);
  } finally {
    client.disconnect();
  }
}

async function unconfirmed(app: TestApp): Promise<number | undefined> {
  const response = await fetch(`${app.baseUrl}${ApiPath.metrics}`);
  return parsePrometheusText(await response.text())
    .get('taco_unconfirmed_messages_total')
    ?.samples.find((sample) => sample.name === 'taco_unconfirmed_messages_total')?.value;
}

const ownCopy = (clientId: string) => (frame: ServerFrame) =>
  isLive(frame) && 'client_id' in frame && frame.client_id === clientId;

describe('Durable acknowledgement (REDIS_WAIT_REPLICAS=1) on a standalone master and replica', () => {
  let master: RedisServer;
  let replica: RedisServer;
  let app: TestApp;

  beforeAll(async () => {
    master = await RedisServer.start();
    replica = await RedisServer.start();
    await replicate(replica, master);
    app = await startTestApp({
      redisUrl: master.url,
      redisWaitReplicas: 1,
      redisWaitTimeoutMs: WAIT_TIMEOUT_MS,
    });
  }, 30_000);
  afterAll(async () => {
    await app?.close();
    await master?.dispose();
    await replica?.dispose();
  });

  it('acknowledges a message once the replica holds it, and delivers it to the others once', async () => {
    const room = 'durable-room';
    const ann = await app.join(room, 'Ann');
    const bob = await app.join(room, 'Bob');
    ann.send({ type: FrameType.Message, body: 'kept twice', client_id: 'c1' });
    const own = await ann.next(ownCopy('c1'), 10_000);
    expect(own).toMatchObject({ sender: 'Ann', body: 'kept twice', seq: 1, client_id: 'c1' });
    // Acknowledged means the replica has it already.
    const onReplica = replica.client();
    expect(await onReplica.lrange(roomKeys(room).log, 0, -1)).toHaveLength(1);
    onReplica.disconnect();
    expect(await bob.next(isLive)).toMatchObject({ body: 'kept twice', seq: 1 });
    // Ann got her copy once: as the acknowledgement, not again through the room's channel.
    expect((await ann.drain(200)).filter(isLive)).toEqual([]);
    expect(await unconfirmed(app)).toBe(0);
    await ann.close();
    await bob.close();
  });

  it('with the replica gone: the others get the message at once, reads do not wait behind it, and the sender is acknowledged as unconfirmed when the wait runs out', async () => {
    const room = 'lonely-room';
    const ann = await app.join(room, 'Ann');
    const bob = await app.join(room, 'Bob');
    const order: string[] = [];
    ann.socket.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as ServerFrame;
      if (isHistory(frame)) order.push('history');
      if (ownCopy('c2')(frame)) order.push('acknowledged');
    });
    await replica.stop('SIGKILL');
    try {
      ann.send({ type: FrameType.Message, body: 'no replica', client_id: 'c2' });
      ann.send({ type: FrameType.History, count: 10 });
      expect(await bob.next(isLive, WAIT_TIMEOUT_MS + 3000)).toMatchObject({
        body: 'no replica',
      });
      const history = await ann.next(isHistory, WAIT_TIMEOUT_MS + 3000);
      expect(history).toMatchObject({ messages: [{ body: 'no replica', seq: 1 }] });
      const own = await ann.next(ownCopy('c2'), WAIT_TIMEOUT_MS + 3000);
      expect(own).toMatchObject({ body: 'no replica', seq: 1 });
      // The history read was answered while the message still waited for a replica.
      expect(order).toEqual(['history', 'acknowledged']);
      expect(await unconfirmed(app)).toBe(1);
      // Stored, so never reported as not stored.
      expect((await ann.drain(100)).filter(isError('unavailable'))).toEqual([]);
    } finally {
      await replica.start();
      await replicate(replica, master);
    }
    // Back in sync: confirmed again.
    ann.send({ type: FrameType.Message, body: 'replica back', client_id: 'c3' });
    expect(await ann.next(ownCopy('c3'), 10_000)).toMatchObject({ seq: 2 });
    expect(await unconfirmed(app)).toBe(1);
    await ann.close();
    await bob.close();
  }, 30_000);

  it("hands the sender its copy once, after the wait, when a gap fill reads the message before the script's answer is read", async () => {
    const room = 'filled-early';
    const ann = await app.join(room, 'Ann');
    const bob = await app.join(room, 'Bob');
    const redis = redisOf(app);
    const plain = master.client();
    ann.send({ type: FrameType.Message, body: 'first', client_id: 'c5' });
    await ann.next(ownCopy('c5'), 5000);
    await bob.next(isLive);
    // The replica's subscription is gone without its knowing (as when a master dies): the
    // message goes out live to no one here, and only a gap fill brings it.
    await redis.unsubscribe(roomKeys(room).channel);
    // The script runs, but its answer waits unread on the writer's socket.
    const writer = (redis.writer as Redis).stream;
    writer.pause();
    try {
      ann.send({ type: FrameType.Message, body: 'read early', client_id: 'c6' });
      await until(async () => (await plain.get(roomKeys(room).seq)) === '2');
      // The subscriber connection is renewed: the room is subscribed again and its gap filled
      // from history, which holds the message already.
      const subscriber = (redis.subscriber as Redis).stream;
      await plain.call('CLIENT', 'KILL', 'ADDR', `127.0.0.1:${subscriber.localPort}`);
      expect(await bob.next(isLive, 5000)).toMatchObject({ body: 'read early', seq: 2 });
      // Not acknowledged before the replica holds it: the wait has not even started.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await ann.drain(0)).filter(ownCopy('c6'))).toEqual([]);
    } finally {
      writer.resume();
      plain.disconnect();
    }
    expect(await ann.next(ownCopy('c6'), 5000)).toMatchObject({ body: 'read early', seq: 2 });
    // Once: the copy the gap fill delivered did not go to her as well.
    expect((await ann.drain(300)).filter(isLive)).toEqual([]);
    expect((await bob.drain(0)).filter(isLive)).toEqual([]);
    // History replies carry the contract's fields only, not whose copy was held back.
    ann.send({ type: FrameType.History, count: 10 });
    const history = await ann.next<ServerHistoryFrame & ServerFrame>(isHistory);
    expect(history.messages.map((message) => Object.keys(message).sort())).toEqual([
      ['body', 'sender', 'seq', 'timestamp'],
      ['body', 'sender', 'seq', 'timestamp'],
    ]);
    await ann.close();
    await bob.close();
  }, 20_000);

  it('refuses a message the master cannot store with unavailable', async () => {
    const ann = await app.join('down-room', 'Ann');
    await master.stop('SIGKILL');
    try {
      ann.send({ type: FrameType.Message, body: 'nowhere to go', client_id: 'c4' });
      expect(await ann.next(isError('unavailable'), 15_000)).toMatchObject({ client_id: 'c4' });
    } finally {
      await master.start();
    }
    await ann.close();
  }, 20_000);
});
