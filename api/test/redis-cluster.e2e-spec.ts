import { FrameType, type ServerFrame, type ServerHistoryFrame } from '@taco/protocol';
import { type RedisCluster, startRedisCluster } from '../../infra/cluster/redis-cluster';
import { roomKeys } from '../src/bus/redis/redis-keys';
import { isHistory } from './support/frames';
import { startTestApp, type TestApp } from './support/test-app';
import { type TestClient } from './support/test-client';
import { until } from './support/until';

/** Every message frame a client sees, by seq, and the client_ids it saw acknowledged. */
function watch(client: TestClient, own: string) {
  const seqs: number[] = [];
  const acked = new Map<string, number>();
  client.socket.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString('utf8')) as ServerFrame;
    if (frame.type !== FrameType.Message || !('seq' in frame)) return;
    seqs.push(frame.seq);
    if (frame.sender === own && frame.client_id) acked.set(frame.client_id, frame.seq);
  });
  return { seqs, acked };
}

/**
 * Two clients on two replicas send 20 messages a second each into `room` while the master owning
 * its slot is killed (and, with `restartOwner`, started again once its replica took over, as a
 * supervisor would). Asserts that delivery comes back, that every acknowledged message (a sender's
 * own copy) was seen by both clients and is in history with its body, and that no one saw a
 * message twice. Returns how many messages were acknowledged, and how many of them after the kill.
 */
async function failover(
  cluster: RedisCluster,
  one: TestApp,
  two: TestApp,
  room: string,
  { restartOwner = false } = {},
): Promise<{ acknowledged: number; afterKill: number }> {
  await cluster.waitUntilHealthy(30_000);
  const ann = await one.join(room, 'Ann');
  const bob = await two.join(room, 'Bob');
  const seenByAnn = watch(ann, 'Ann');
  const seenByBob = watch(bob, 'Bob');
  let sending = true;
  let sent = 0;
  const traffic = (async () => {
    for (let i = 0; sending && i < 600; i++) {
      ann.send({ type: FrameType.Message, body: `ann ${i}`, client_id: `a${i}` });
      bob.send({ type: FrameType.Message, body: `bob ${i}`, client_id: `b${i}` });
      sent = i + 1;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  await until(() => seenByAnn.acked.size >= 5 && seenByBob.acked.size >= 5, 10_000);

  const owner = await cluster.ownerOf(roomKeys(room).log);
  owner.kill('SIGKILL');
  const killedAt = sent;
  if (restartOwner) {
    await owner.exited;
    await until(
      async () => (await cluster.ownerOf(roomKeys(room).log).catch(() => owner)) !== owner,
      15_000,
      100,
    );
    await owner.start();
  }
  // Delivery comes back on the promoted replica: each hears its own copy of a message sent
  // well after the kill.
  const after = (seen: { acked: Map<string, number> }) =>
    [...seen.acked.keys()].some((id) => Number(id.slice(1)) > killedAt + 5);
  await until(() => after(seenByAnn) && after(seenByBob), 20_000, 100);
  const resumed = Math.max(...seenByAnn.seqs);
  await until(() => Math.max(...seenByBob.seqs) >= resumed, 15_000, 100);
  sending = false;
  await traffic;
  await new Promise((resolve) => setTimeout(resolve, 500));
  // Each client saw every acknowledged message, once.
  const acknowledged = [...seenByAnn.acked.values(), ...seenByBob.acked.values()];
  for (const seen of [seenByAnn, seenByBob]) {
    expect(acknowledged.filter((seq) => !seen.seqs.includes(seq))).toEqual([]);
  }
  for (const seen of [seenByAnn, seenByBob]) {
    expect(new Set(seen.seqs).size).toBe(seen.seqs.length);
  }
  // The whole history, 500 at a time.
  const stored = new Map<number, { body: string }>();
  for (let after = 0, page = 0; page < 10; page++) {
    ann.send({ type: FrameType.History, count: 500, after });
    const history = await ann.next<ServerHistoryFrame & ServerFrame>(isHistory, 5000);
    for (const message of history.messages) stored.set(message.seq, message);
    if (history.messages.length < 500) break;
    after = history.messages.at(-1)?.seq ?? after;
  }
  for (const [id, seq] of [...seenByAnn.acked, ...seenByBob.acked]) {
    expect([id, stored.get(seq)?.body]).toEqual([
      id,
      `${id.startsWith('a') ? 'ann' : 'bob'} ${id.slice(1)}`,
    ]);
  }
  ann.socket.close();
  bob.socket.close();
  if (!restartOwner) await owner.start();
  const afterKill = [...seenByAnn.acked.keys(), ...seenByBob.acked.keys()].filter(
    (id) => Number(id.slice(1)) >= killedAt,
  ).length;
  return { acknowledged: acknowledged.length, afterKill };
}

describe('Two replicas on a Redis Cluster', () => {
  let cluster: RedisCluster;
  let one: TestApp;
  let two: TestApp;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    const shared = {
      redisClusterNodes: cluster.nodes.map(({ port }) => ({ host: '127.0.0.1', port })),
      presenceRefreshMs: 200,
      // The failover test sends 20 messages a second per client.
      messageBurst: 1000,
      messagesPerSecond: 1000,
    };
    one = await startTestApp({ ...shared, replicaId: 'one' });
    two = await startTestApp({ ...shared, replicaId: 'two' });
  }, 90_000);
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await cluster?.stop();
  });

  it('delivers a room across replicas through its shard channel', async () => {
    const room = 'cluster-room';
    const ann = await one.join(room, 'Ann');
    const bob = await two.join(room, 'Bob');
    ann.send({ type: FrameType.Message, body: 'hello from one', client_id: 'c1' });
    const got = await bob.next((frame) => frame.type === FrameType.Message && 'seq' in frame);
    expect(got).toMatchObject({ sender: 'Ann', body: 'hello from one', seq: 1 });
    const channel = roomKeys(room).channel;
    const owner = await cluster.ownerOf(roomKeys(room).log);
    expect(await cluster.cli(owner.port, 'pubsub', 'shardnumsub', channel)).toBe(`${channel}\n2`);
    ann.socket.close();
    bob.socket.close();
  });

  it('keeps delivering when the master owning a busy room is killed: nothing acknowledged is lost or shown twice', async () => {
    await failover(cluster, one, two, 'failover-room');
  }, 60_000);
});

describe('Durable acknowledgement (REDIS_WAIT_REPLICAS=1) on a Redis Cluster', () => {
  let cluster: RedisCluster;
  let one: TestApp;
  let two: TestApp;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    const shared = {
      redisClusterNodes: cluster.nodes.map(({ port }) => ({ host: '127.0.0.1', port })),
      presenceRefreshMs: 200,
      messageBurst: 1000,
      messagesPerSecond: 1000,
      redisWaitReplicas: 1,
      // Longer than a failover (cluster-node-timeout 2 s + the election): a message whose
      // master died while it waited is looked for on the promoted replica, not guessed at.
      redisWaitTimeoutMs: 10_000,
    };
    one = await startTestApp({ ...shared, replicaId: 'one' });
    two = await startTestApp({ ...shared, replicaId: 'two' });
  }, 90_000);
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await cluster?.stop();
  });

  it('loses no acknowledged message when the master owning a busy room is killed', async () => {
    const { acknowledged, afterKill } = await failover(cluster, one, two, 'durable-failover', {
      restartOwner: true,
    });
    expect(acknowledged).toBeGreaterThan(10);
    expect(afterKill).toBeGreaterThan(0);
  }, 90_000);
});
