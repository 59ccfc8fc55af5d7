import { ApiPath, FrameType } from '@taco/protocol';
import { type RedisCluster, startRedisCluster } from '@taco/harness';
import { roomKeys } from '../src/bus/redis/redis-keys';
import { MetricsService } from '../src/metrics/metrics.service';
import { parsePrometheusText } from './support/prometheus-text';
import { repeated, type SeenMessages, storedMessages, watchMessages } from './support/room-traffic';
import { startTestApp, type TestApp } from './support/test-app';
import { until } from './support/until';

/** Copies of stored messages `app` stopped because their connection had been sent them. */
async function droppedCopies(app: TestApp): Promise<number> {
  const response = await fetch(`${app.baseUrl}${ApiPath.metrics}`);
  const family = parsePrometheusText(await response.text()).get(
    'taco_duplicate_copies_dropped_total',
  );
  return family?.samples[0]?.value ?? 0;
}

/** How many rooms `app` subscribed again after its subscriber connections were renewed. */
async function renewals(app: TestApp): Promise<number> {
  const { values } = await app.app.get(MetricsService).resubscribes.get();
  return values.find((value) => value.labels.cause === 'renewed')?.value ?? 0;
}

/**
 * Two clients on two replicas send 20 messages a second each into `room` while the master owning
 * its slot is killed (and, with `restartOwner`, started again once its replica took over, as a
 * supervisor would). Once delivery is back, the promoted master's subscriber connections are cut,
 * so both replicas subscribe again and fill the gap from history under the same traffic (with the
 * wait, while senders' copies are still held back). Asserts that delivery comes back, that every
 * acknowledged message (a sender's own copy) was seen by both clients and is in history with its
 * body, and that no socket was sent an `(epoch, seq)` twice. Returns how many messages were
 * acknowledged, and how many of them after the kill.
 */
async function failover(
  cluster: RedisCluster,
  one: TestApp,
  two: TestApp,
  room: string,
  { restartOwner = false } = {},
): Promise<{ acknowledged: number; afterKill: number }> {
  await cluster.waitUntilHealthy(30_000);
  const droppedBefore = (await droppedCopies(one)) + (await droppedCopies(two));
  const ann = await one.join(room, 'Ann');
  const bob = await two.join(room, 'Bob');
  const seenByAnn = watchMessages(ann, 'Ann');
  const seenByBob = watchMessages(bob, 'Bob');
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
  const lastSeqBefore = Math.max(...seenByAnn.seqs, ...seenByBob.seqs);
  // One shard failing over is not "cannot write at all": both replicas stay ready throughout.
  const readiness: number[] = [];
  const probing = (async () => {
    for (let i = 0; i < 20; i++) {
      for (const app of [one, two]) {
        readiness.push((await fetch(`${app.baseUrl}${ApiPath.healthReady}`)).status);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  if (restartOwner) {
    await owner.exited;
    await until(
      async () => (await cluster.ownerOf(roomKeys(room).log).catch(() => owner)) !== owner,
      15_000,
      100,
    );
    await owner.start();
  }
  // Messages flow again through the promoted master (with the wait, the senders' own copies may
  // still be held back until the restarted node has caught up as its replica).
  const newer = (seen: SeenMessages) => seen.seqs.filter((seq) => seq > lastSeqBefore).length;
  await until(() => newer(seenByAnn) >= 5 && newer(seenByBob) >= 5, 20_000, 50);
  const promoted = await cluster.ownerOf(roomKeys(room).log);
  const renewedBefore = [await renewals(one), await renewals(two)];
  const killed = await cluster.cli(promoted.port, 'client', 'kill', 'type', 'pubsub');
  expect(Number(killed)).toBeGreaterThanOrEqual(2);
  await until(
    async () =>
      (await renewals(one)) > renewedBefore[0]! && (await renewals(two)) > renewedBefore[1]!,
    15_000,
    100,
  );
  // Delivery comes back on the promoted replica: each hears its own copy of a message sent
  // well after the kill.
  const after = (seen: SeenMessages) =>
    [...seen.acked.keys()].some((id) => Number(id.slice(1)) > killedAt + 5);
  await until(() => after(seenByAnn) && after(seenByBob), 20_000, 100);
  const resumed = Math.max(...seenByAnn.seqs);
  await until(() => Math.max(...seenByBob.seqs) >= resumed, 15_000, 100);
  sending = false;
  await traffic;
  await probing;
  expect(readiness.filter((status) => status !== 200)).toEqual([]);
  await new Promise((resolve) => setTimeout(resolve, 500));
  // Each client saw every acknowledged message, once: no socket was sent an (epoch, seq) twice.
  const acknowledged = [...seenByAnn.acked.values(), ...seenByBob.acked.values()];
  for (const seen of [seenByAnn, seenByBob]) {
    expect(acknowledged.filter((seq) => !seen.seqs.includes(seq))).toEqual([]);
  }
  for (const seen of [seenByAnn, seenByBob]) expect(repeated(seen.copies)).toEqual([]);
  // Nor was any offered to one twice: the connections' windows had nothing to stop.
  expect((await droppedCopies(one)) + (await droppedCopies(two))).toBe(droppedBefore);
  const stored = await storedMessages(ann);
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
      subscriptionCheckMs: 500,
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

  it('is not ready while a shard is lost with its replica, and ready again once it is back', async () => {
    await cluster.waitUntilHealthy(30_000);
    const ready = async () => (await fetch(`${one.baseUrl}${ApiPath.healthReady}`)).status;
    expect(await ready()).toBe(200);
    const master = await cluster.ownerOf(roomKeys('lost-shard').log);
    const replicas = await cluster.replicasOf(master);
    expect(replicas).toHaveLength(1);
    await Promise.all([...replicas, master].map((node) => node.stop('SIGKILL')));
    // Every node still answers PING, but the cluster refuses every command: not ready.
    await until(async () => (await ready()) === 503, 30_000, 200);
    await Promise.all([master, ...replicas].map((node) => node.start()));
    await cluster.waitUntilHealthy(30_000);
    await until(async () => (await ready()) === 200, 30_000, 200);
  }, 90_000);

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

  it('keeps a busy room flowing while its slot moves to another master: everyone sees every stored message, once', async () => {
    const room = 'moving-room';
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
    const { from, to } = await cluster.moveSlot(roomKeys(room).log);
    expect((await cluster.ownerOf(roomKeys(room).log)).port).toBe(to.port);
    expect(to.port).not.toBe(from.port);
    // Messages sent after the move reach both, through the channel on the new owner.
    const movedAt = seenByAnn.acked.size;
    await until(() => seenByAnn.acked.size >= movedAt + 20, 15_000, 100);
    sending = false;
    await traffic;
    const stored = await storedMessages(ann);
    const all = [...stored.keys()];
    await until(
      () => all.every((seq) => seenByAnn.seqs.includes(seq) && seenByBob.seqs.includes(seq)),
      15_000,
      100,
    );
    for (const seen of [seenByAnn, seenByBob]) expect(repeated(seen.copies)).toEqual([]);
    const channel = roomKeys(room).channel;
    expect(await cluster.cli(to.port, 'pubsub', 'shardnumsub', channel)).toBe(`${channel}\n2`);
    ann.socket.close();
    bob.socket.close();
  }, 60_000);

  it('keeps delivering when the master owning a busy room is killed: nothing acknowledged is lost, no socket is sent an (epoch, seq) twice', async () => {
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

  it('loses no acknowledged message and sends no socket an (epoch, seq) twice when the master owning a busy room is killed', async () => {
    const { acknowledged, afterKill } = await failover(cluster, one, two, 'durable-failover', {
      restartOwner: true,
    });
    expect(acknowledged).toBeGreaterThan(10);
    expect(afterKill).toBeGreaterThan(0);
  }, 90_000);
});
