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
    const room = 'failover-room';
    const ann = await one.join(room, 'Ann');
    const bob = await two.join(room, 'Bob');
    const seenByAnn = watch(ann, 'Ann');
    const seenByBob = watch(bob, 'Bob');
    let sending = true;
    let sent = 0;
    const traffic = (async () => {
      for (let i = 0; sending && i < 400; i++) {
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
    // Delivery comes back on the promoted replica: each hears its own echo of a message sent
    // well after the kill (echoes come through the shard channel like everyone else's).
    const after = (seen: { acked: Map<string, number> }) =>
      [...seen.acked.keys()].some((id) => Number(id.slice(1)) > killedAt + 5);
    await until(() => after(seenByAnn) && after(seenByBob), 15_000, 100);
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
    ann.send({ type: FrameType.History, count: 500 });
    const history = await ann.next<ServerHistoryFrame & ServerFrame>(isHistory, 5000);
    const stored = new Map(history.messages.map((message) => [message.seq, message]));
    for (const [id, seq] of [...seenByAnn.acked, ...seenByBob.acked]) {
      expect([id, stored.get(seq)?.body]).toEqual([
        id,
        `${id.startsWith('a') ? 'ann' : 'bob'} ${id.slice(1)}`,
      ]);
    }
    ann.socket.close();
    bob.socket.close();
    await owner.start();
  }, 60_000);
});
