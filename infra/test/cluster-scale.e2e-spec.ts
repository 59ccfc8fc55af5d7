import { readFileSync } from 'node:fs';
import { CloseCode, FrameType, type ServerFrame } from '@taco/protocol';
import {
  type Cluster,
  httpStatus,
  type Service,
  sleep,
  startCluster,
  waitFor,
} from '@taco/harness';
import {
  credentials,
  history,
  isPresence,
  join,
  type LiveMessage,
  liveMessages,
  rejoin,
  type RawClient,
} from './support/chat';

/** Limits out of the way: every test client shares 127.0.0.1. */
const ENV = {
  CREDENTIALS_PER_MINUTE: '100000',
  CONNECTIONS_PER_IP: '10000',
  MESSAGE_BURST: '1000',
  MESSAGES_PER_SECOND: '1000',
  TYPING_PER_SECOND: '1000',
  HISTORY_REQUESTS_PER_10S: '1000',
  LOG_LEVEL: 'warn',
};

/** Presence must report a dead replica's participants gone within 30 s (RELIABILITY.md). */
const PRESENCE_EXPIRY_MS = 30_000;

const key = (message: { seq: number; sender: string; body: string }) =>
  `${message.seq}|${message.sender}|${message.body}`;

describe('three replicas behind nginx, one Redis', () => {
  let cluster: Cluster;
  const clients: RawClient[] = [];

  const replica = (index: number): Service => {
    const handle = cluster.replicas[index];
    if (!handle) throw new Error(`no replica ${index}`);
    return handle;
  };

  /** Credentials through nginx, then a socket to `baseUrl` (nginx or one replica's own port). */
  const connect = async (baseUrl: string, room: string, name: string) => {
    const client = await join(baseUrl, room, name, await credentials(cluster.url, room, name));
    clients.push(client);
    return client;
  };

  /** Sends messages and resolves each one's echo (its own `client_id`, with a `seq`). */
  const acknowledged = (client: RawClient, name: string) => {
    const acks = new Map<string, number>();
    client.socket.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as Partial<LiveMessage>;
      if (frame.type === FrameType.Message && frame.sender === name && frame.client_id) {
        acks.set(frame.client_id, frame.seq ?? -1);
      }
    });
    return acks;
  };

  beforeAll(async () => {
    cluster = await startCluster({ replicas: 3, env: ENV });
  }, 60_000);

  // A test that failed half-way must not leave the next one with a replica down.
  afterEach(async () => {
    for (const handle of cluster.replicas) if (!handle.isRunning) await handle.restart();
    if (cluster.redis && !cluster.redis.isRunning) await cluster.redis.start();
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) client.socket.terminate();
    await cluster?.stop();
  }, 30_000);

  it('gives clients on different replicas one seq order, one history, typing, presence and clears', async () => {
    const room = 'spread-room';
    const names = ['ann', 'ben', 'cat', 'dan', 'eve', 'fay'];
    // Three on the replicas directly (one each, so the spread is certain), three through nginx.
    const targets = [replica(0).url, replica(1).url, replica(2).url, cluster.url, cluster.url];
    targets.push(cluster.url);
    const room1: RawClient[] = [];
    for (const [index, name] of names.entries()) {
      room1.push(await connect(targets[index] ?? cluster.url, room, name));
    }

    // Everyone talks at once.
    for (let round = 0; round < 5; round++) {
      for (const [index, client] of room1.entries()) {
        const name = names[index] ?? '';
        client.send({
          type: FrameType.Message,
          body: `${name} ${round}`,
          client_id: `${name}-${round}`,
        });
      }
    }
    const received = await Promise.all(room1.map((client) => liveMessages(client, 30)));
    const reference = (received[0] ?? []).map(key);
    expect(reference).toHaveLength(30);
    const seqs = (received[0] ?? []).map((message) => message.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(30);
    for (const [index, messages] of received.entries()) {
      expect(messages.map(key)).toEqual(reference);
      // The sender's client_id rides on every copy, so the sender can match its own echo.
      for (const message of messages) {
        expect(message.client_id).toBe(message.body.replace(' ', '-'));
      }
      expect(messages.filter((message) => message.sender === names[index])).toHaveLength(5);
    }

    // History, asked on each replica, is the live order.
    for (const client of room1.slice(0, 3)) {
      expect((await history(client)).messages.map(key)).toEqual(reference);
    }

    // Typing goes to everyone else, across replicas.
    room1[0]?.send({ type: FrameType.Typing, typing: true });
    for (const client of room1.slice(1)) {
      const typing = await client.nextOfType(FrameType.Typing, 5000);
      expect(typing).toMatchObject({ room, sender: 'ann', typing: true });
    }
    expect(
      (await room1[0]?.drain(200))?.filter((frame) => frame.type === FrameType.Typing),
    ).toEqual([]);

    // A newcomer on replica 2 is announced everywhere, and so is its leaving.
    const gus = await connect(replica(1).url, room, 'gus');
    await Promise.all(room1.map((client) => client.next(isPresence('gus', true), 5000)));
    await gus.close();
    await Promise.all(room1.map((client) => client.next(isPresence('gus', false), 5000)));

    // A clear reaches everyone and empties the shared history.
    room1[4]?.send({ type: FrameType.Clear });
    for (const client of room1) {
      expect(await client.nextOfType(FrameType.Clear, 5000)).toMatchObject({ room, sender: 'eve' });
    }
    for (const client of room1.slice(0, 3)) {
      expect((await history(client)).messages).toEqual([]);
    }
    await Promise.all(room1.map((client) => client.close()));
  });

  it('survives a SIGKILLed replica: its clients move through nginx and no acknowledged message is lost', async () => {
    const room = 'kill-room';
    const victim = replica(0);
    const watcher = await connect(replica(1).url, room, 'watcher');
    const lookout = await connect(replica(2).url, room, 'lookout');
    // A participant of the dead replica that never comes back: the others must see it leave.
    await connect(victim.url, room, 'ghost');
    const senders = ['vera', 'vince'];
    const tokens = await Promise.all(senders.map((name) => credentials(cluster.url, room, name)));
    const victims = await Promise.all(
      senders.map((name, index) => join(victim.url, room, name, tokens[index] ?? '')),
    );
    clients.push(...victims);
    const acks = victims.map((client, index) => acknowledged(client, senders[index] ?? ''));

    // Traffic: each victim sends every 20 ms until its socket dies (bounded at 500).
    const traffic = victims.map(async (client, index) => {
      for (let i = 0; i < 500 && client.socket.readyState === client.socket.OPEN; i++) {
        client.send({
          type: FrameType.Message,
          body: `${senders[index]} says ${i}`,
          client_id: `${senders[index]}-${i}`,
        });
        await sleep(20);
      }
    });
    await waitFor('ten acknowledged messages each', () => acks.every((map) => map.size >= 10), {
      timeoutMs: 10_000,
    });
    const killedAt = Date.now();
    victim.kill('SIGKILL');
    expect(await victim.exited).toMatchObject({ signal: 'SIGKILL' });
    await Promise.all(traffic);
    const closes = await Promise.all(victims.map((client) => client.closed));
    for (const close of closes) expect(close.code).toBe(CloseCode.Abnormal);

    // The other replicas keep going, and the victims come back through nginx.
    const rejoined = await Promise.all(
      senders.map((name, index) => rejoin(cluster.url, room, name, tokens[index] ?? '', 10_000)),
    );
    clients.push(...rejoined.map(({ client }) => client));
    expect(Date.now() - killedAt).toBeLessThan(10_000);
    for (const [index, { client }] of rejoined.entries()) {
      const ack = acknowledged(client, senders[index] ?? '');
      client.send({ type: FrameType.Message, body: 'back again', client_id: 'back' });
      await waitFor('the echo after rejoining', () => ack.has('back'), { timeoutMs: 5000 });
    }

    // Every message a victim saw acknowledged is in history, under the seq it was given.
    const stored = new Map(
      (await history(watcher)).messages.map((message) => [message.seq, message.body]),
    );
    for (const [index, map] of acks.entries()) {
      expect(map.size).toBeGreaterThanOrEqual(10);
      for (const [clientId, seq] of map) {
        const i = clientId.slice(clientId.lastIndexOf('-') + 1);
        expect(stored.get(seq)).toBe(`${senders[index]} says ${i}`);
      }
    }

    // The dead replica's participant is reported gone, on both live replicas, within 30 s.
    await Promise.all(
      [watcher, lookout].map((client) =>
        client.next(isPresence('ghost', false), PRESENCE_EXPIRY_MS + 5000),
      ),
    );
    expect(Date.now() - killedAt).toBeLessThan(PRESENCE_EXPIRY_MS + 5000);
    expect(cluster.replicas.filter((handle) => !handle.isRunning)).toEqual([victim]);

    // The victims' tokens went through nginx while a replica was dead: neither log has them.
    // (nginx writes a socket's access line when it closes.)
    await Promise.all(rejoined.map(({ client }) => client.close()));
    const logs = () =>
      [cluster.nginx.accessLog, cluster.nginx.errorLog]
        .map((path) => readFileSync(path, 'utf8'))
        .join('\n');
    await waitFor('the sockets in the access log', () =>
      logs().includes(`"GET /api/room/${room}/ws HTTP/1.1" 101`),
    );
    for (const token of tokens) expect(logs()).not.toContain(token);
    expect(logs()).not.toContain('token=');

    await victim.restart();
    expect(await httpStatus(`${victim.url}/api/health/ready`)).toBe(200);
  }, 90_000);

  it('drains a SIGTERMed replica: 503 on ready, 1012 to its sockets, clients back within seconds', async () => {
    const room = 'drain-room';
    const target = replica(1);
    const watcher = await connect(replica(2).url, room, 'watcher');
    const names = ['dora', 'dino'];
    const tokens = await Promise.all(names.map((name) => credentials(cluster.url, room, name)));
    const drained = await Promise.all(
      names.map((name, index) => join(target.url, room, name, tokens[index] ?? '')),
    );
    clients.push(...drained);
    // A client that stops reading holds the drain open (up to its bound), so ready is seen 503.
    const stubborn = await connect(target.url, room, 'stubborn');
    stubborn.socket.pause();

    const statuses: number[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        statuses.push(await httpStatus(`${target.url}/api/health/ready`, 500));
        await sleep(20);
      }
    })();
    const stoppedAt = Date.now();
    target.kill('SIGTERM');

    const closes = await Promise.all(drained.map((client) => client.closed));
    for (const close of closes) expect(close.code).toBe(CloseCode.Restart);
    const rejoined = await Promise.all(
      names.map((name, index) => rejoin(cluster.url, room, name, tokens[index] ?? '', 5000)),
    );
    clients.push(...rejoined.map(({ client }) => client));
    expect(Date.now() - stoppedAt).toBeLessThan(5000);

    rejoined[0]?.client.send({ type: FrameType.Message, body: 'still here', client_id: 'x' });
    await watcher.next(
      (frame: ServerFrame) => 'body' in frame && frame.body === 'still here',
      5000,
    );

    await waitFor('the drained replica to exit', () => !target.isRunning, { timeoutMs: 15_000 });
    polling = false;
    await poller;
    expect(statuses).toContain(503);
    stubborn.socket.terminate();

    await target.restart();
    expect(await httpStatus(`${target.url}/api/health/ready`)).toBe(200);
  }, 60_000);

  it('keeps history and delivery across a Redis restart, and no replica exits', async () => {
    const room = 'redis-room';
    const redis = cluster.redis;
    if (!redis) throw new Error('the cluster has no redis');
    const alice = await connect(replica(0).url, room, 'alice');
    const bruno = await connect(replica(2).url, room, 'bruno');
    for (let i = 0; i < 5; i++) alice.send({ type: FrameType.Message, body: `before ${i}` });
    const before = await liveMessages(bruno, 5);
    expect((await liveMessages(alice, 5)).map(key)).toEqual(before.map(key));

    // SIGTERM: Redis writes out the AOF and exits; the replicas stay up, reporting not ready.
    const exit = await redis.stop('SIGTERM');
    expect(exit.signal === 'SIGTERM' || exit.code === 0).toBe(true);
    await waitFor(
      'replicas not ready while Redis is down',
      async () => (await httpStatus(`${replica(0).url}/api/health/ready`)) === 503,
      { timeoutMs: 10_000 },
    );
    await redis.start();
    for (const handle of cluster.replicas) {
      await waitFor(
        `${handle.id} ready again`,
        async () => (await httpStatus(`${handle.url}/api/health/ready`)) === 200,
        { timeoutMs: 15_000 },
      );
    }

    // History came back from the AOF.
    const carol = await connect(cluster.url, room, 'carol');
    expect((await history(carol)).messages.map(key)).toEqual(before.map(key));

    // Delivery resumes across replicas, for sockets from before the restart and after it.
    alice.send({ type: FrameType.Message, body: 'after' });
    for (const client of [alice, bruno, carol]) {
      const [message] = await liveMessages(client, 1, 10_000);
      expect(message).toMatchObject({ sender: 'alice', body: 'after' });
      expect(message?.seq).toBeGreaterThan(before.at(-1)?.seq ?? Infinity);
    }
    expect(cluster.replicas.every((handle) => handle.isRunning)).toBe(true);
  }, 60_000);
});
