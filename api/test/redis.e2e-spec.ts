import {
  ApiPath,
  CloseCode,
  ErrorCode,
  FrameType,
  type ServerHistoryFrame,
  type ServerMessageFrame,
} from '@taco/protocol';
import { type Redis } from 'ioredis';
import { RedisConnections } from '../src/bus/redis/redis-connections';
import { RedisPresenceStore } from '../src/bus/redis/redis-presence.store';
import { ReplicaLease } from '../src/bus/redis/replica-lease';
import { PresenceKeeper } from '../src/chat/presence-keeper.service';
import { RoomTokenService } from '../src/rooms/room-token.service';
import { parsePrometheusText } from './support/prometheus-text';
import { RedisServer } from './support/redis-server';
import { startTestApp, TEST_SECRET, type TestApp } from './support/test-app';
import { until } from './support/until';
import { nameClaim } from '../src/bus/name-claim';
import { isHistory, isLive, isPresence, type RawClient } from '@taco/harness';

describe('Two replicas sharing Redis', () => {
  let redis: RedisServer;
  let plain: Redis;
  let one: TestApp;
  let two: TestApp;

  beforeAll(async () => {
    redis = await RedisServer.start();
    plain = redis.client();
    const shared = {
      redisUrl: redis.url,
      jwtSecret: TEST_SECRET,
      historyMax: 50,
      presenceRefreshMs: 100,
    };
    one = await startTestApp({ ...shared, replicaId: 'one' });
    two = await startTestApp({ ...shared, replicaId: 'two' });
  });
  afterAll(async () => {
    await one.close();
    await two.close();
    plain.disconnect();
    await redis.dispose();
  });

  it('delivers messages, typing and clears across replicas in one seq order', async () => {
    const room = 'cross-replica';
    const ann = await one.join(room, 'Ann');
    const bob = await two.join(room, 'Bob');
    expect(await ann.next(isPresence('Bob', true))).toMatchObject({ room });

    for (let i = 1; i <= 3; i++) {
      ann.send({ type: FrameType.Message, body: `from one ${i}`, client_id: `a${i}` });
      bob.send({ type: FrameType.Message, body: `from two ${i}` });
    }
    const seenByAnn: ServerMessageFrame[] = [];
    const seenByBob: ServerMessageFrame[] = [];
    for (let i = 0; i < 6; i++) {
      seenByAnn.push(await ann.next<ServerMessageFrame>(isLive));
      seenByBob.push(await bob.next<ServerMessageFrame>(isLive));
    }
    expect(seenByAnn.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(seenByBob).toEqual(seenByAnn);
    expect(seenByAnn.filter((m) => m.client_id).map((m) => m.client_id)).toEqual([
      'a1',
      'a2',
      'a3',
    ]);

    ann.send({ type: FrameType.History, count: 100 });
    bob.send({ type: FrameType.History, count: 100 });
    const historyA = await ann.next<ServerHistoryFrame>(isHistory);
    const historyB = await bob.next<ServerHistoryFrame>(isHistory);
    expect(historyA.messages).toEqual(historyB.messages);
    expect(historyA.messages.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6]);

    bob.send({ type: FrameType.Typing, typing: true });
    expect(await ann.nextOfType(FrameType.Typing)).toEqual({
      type: FrameType.Typing,
      room,
      sender: 'Bob',
      typing: true,
    });

    ann.send({ type: FrameType.Clear });
    expect(await bob.nextOfType(FrameType.Clear)).toEqual({
      type: FrameType.Clear,
      room,
      sender: 'Ann',
    });
    expect(await ann.nextOfType(FrameType.Clear)).toEqual({
      type: FrameType.Clear,
      room,
      sender: 'Ann',
    });

    await bob.close();
    expect(await ann.next(isPresence('Bob', false))).toMatchObject({ connecting: false });
  });

  it('announces a rename on one replica to the other, and frees the old name on both', async () => {
    const room = 'rename-room';
    const annToken = await one.token(room, 'Ann');
    const ann = one.connect(room, annToken);
    await ann.next(isPresence('Ann', true));
    // The same name in a second tab, on the other replica.
    const annTab = two.connect(room, annToken);
    await annTab.next(isPresence('Ann', true));
    const bob = await two.join(room, 'Bob');
    await ann.next(isPresence('Bob', true));
    await bob.drain();
    const annieToken = await two.token(room, 'Annie');
    ann.send({ type: FrameType.Rename, token: annieToken });
    expect(await bob.next(isPresence('Annie', true))).toEqual({
      type: FrameType.Presence,
      room,
      sender: 'Annie',
      connecting: true,
      renamed_from: 'Ann',
    });
    // The second tab follows on its replica; only then is the old name gone, on both.
    await annTab.next(isPresence('Annie', true));
    annTab.send({ type: FrameType.Rename, token: annieToken });
    expect(await annTab.next(isPresence('Annie', true))).toMatchObject({ renamed_from: 'Ann' });
    expect(await bob.next(isPresence('Ann', false))).toMatchObject({ renamed_to: 'Annie' });
    expect((await one.post(ApiPath.roomCredentials(room), { sender_id: 'Ann' })).status).toBe(200);
    expect((await two.post(ApiPath.roomCredentials(room), { sender_id: 'Annie' })).status).toBe(
      409,
    );
    // The renamed name cannot be taken over by a rename on the other replica either.
    bob.send({ type: FrameType.Rename, token: one.app.get(RoomTokenService).sign(room, 'ANNIE') });
    expect(await bob.next((f) => f.type === FrameType.Error)).toMatchObject({
      code: ErrorCode.NameTaken,
    });
    ann.send({ type: FrameType.Message, body: 'renamed' });
    expect(await bob.next<ServerMessageFrame>(isLive)).toMatchObject({
      sender: 'Annie',
      body: 'renamed',
    });
    await ann.close();
    await annTab.close();
    expect(await bob.next(isPresence('Annie', false))).toMatchObject({ connecting: false });
    await bob.close();
  });

  it('times Redis round trips per command in its metrics', async () => {
    const ann = await one.join('timed-room', 'Ann');
    ann.send({ type: FrameType.Message, body: 'timed' });
    await ann.next(isLive);
    ann.send({ type: FrameType.History, count: 5 });
    await ann.next(isHistory);
    const response = await fetch(`${one.baseUrl}${ApiPath.metrics}`);
    const family = parsePrometheusText(await response.text()).get('taco_redis_round_trip_seconds');
    expect(family?.type).toBe('histogram');
    const count = (command: string) =>
      family?.samples.find((s) => s.name.endsWith('_count') && s.labels.command === command)?.value;
    expect(count('append')).toBeGreaterThanOrEqual(1);
    expect(count('history')).toBeGreaterThanOrEqual(1);
    await ann.close();
  });

  it('refuses a name connected on another replica with 409', async () => {
    const ann = await one.join('name-room', 'Ann');
    const response = await two.post('/api/room/name-room', { sender_id: 'ANN' });
    expect(response.status).toBe(409);
    await ann.close();
  });

  it('stores hash-tagged keys with a TTL, trims history, and subscribes per room only', async () => {
    const room = 'layout-room';
    const ann = await one.join(room, 'Ann');
    ann.send({ type: FrameType.Message, body: 'hello' });
    await ann.next(isLive);
    expect(
      await plain.exists(`chat:{${room}}:log`, `chat:{${room}}:seq`, `chat:{${room}}:presence`),
    ).toBe(3);
    expect(await plain.ttl(`chat:{${room}}:log`)).toBeGreaterThan(6 * 86400);
    expect(await plain.pubsub('NUMSUB', `chat:{${room}}`)).toEqual([`chat:{${room}}`, 1]);
    expect(await plain.pubsub('NUMPAT')).toBe(0);
    await ann.close();
    await until(
      async () => ((await plain.pubsub('NUMSUB', `chat:{${room}}`)) as [string, number])[1] === 0,
    );
  });

  it('keeps at most HISTORY_MAX messages', async () => {
    const app = await startTestApp({ redisUrl: redis.url, historyMax: 3, messageBurst: 100 });
    try {
      const ann = await app.join('trim-room', 'Ann');
      for (let i = 1; i <= 5; i++) ann.send({ type: FrameType.Message, body: `m${i}` });
      for (let i = 1; i <= 5; i++) await ann.next(isLive);
      expect(await plain.llen('chat:{trim-room}:log')).toBe(3);
    } finally {
      await app.close();
    }
  });

  it('reports the participants of a replica that stopped refreshing as gone', async () => {
    const room = 'reaped-room';
    const bob = await two.join(room, 'Bob');
    // A replica that joins Ghost and then dies: it never refreshes, and its entry expires.
    const dead = new RedisConnections(redis.url, 'dead');
    await dead.waitUntilReady(5000);
    const deadPresence = new RedisPresenceStore(dead, new ReplicaLease(dead, 300));
    expect(await deadPresence.join(room, nameClaim('Ghost', 'ghost'), 'dead:1')).toMatchObject({
      first: true,
    });
    await dead.close();
    expect(await bob.next(isPresence('Ghost', false), 5000)).toEqual({
      type: FrameType.Presence,
      room,
      sender: 'Ghost',
      connecting: false,
    });
    expect(await two.post(`/api/room/${room}`, { sender_id: 'Ghost' }).then((r) => r.status)).toBe(
      200,
    );
    await bob.close();
  });

  it('gives a name to one holder across replicas, and never to two racing for it', async () => {
    const room = 'holder-room';
    const sign = (name: string) => one.app.get(RoomTokenService).sign(room, name);
    const alice = one.connect(room, sign('Alice'));
    await alice.next(isPresence('Alice', true));
    // Another credential for Alice, or for a look-alike, on the other replica.
    for (const name of ['Alice', 'AIice', '\u13AAlice']) {
      const other = two.connect(room, sign(name));
      expect(await other.nextOfType(FrameType.Error)).toMatchObject({ code: ErrorCode.NameTaken });
      expect(await other.closed).toMatchObject({ code: CloseCode.NameTaken });
    }
    // Alice never heard of a second Alice, or of a look-alike.
    const heard = (await alice.drain()).filter((f) => f.type === FrameType.Presence);
    expect(heard.every((f) => f.sender === 'Alice' && f.connecting)).toBe(true);
    await alice.close();
    // Two people take a free name at once through the two replicas: one of them gets it.
    for (let round = 0; round < 4; round++) {
      const name = `Racer ${round}`;
      const a = one.connect(room, sign(name));
      const b = two.connect(room, sign(name));
      // One is closed with 4409; the other stays in.
      const outcomes = await Promise.all(
        [a, b].map((client) =>
          Promise.race([
            client.closed.then(({ code }) => code),
            new Promise((resolve) => setTimeout(() => resolve('open'), 700)),
          ]),
        ),
      );
      expect(outcomes.map(String).sort()).toEqual([String(CloseCode.NameTaken), 'open']);
      await Promise.all([a.close(), b.close()]);
    }
  }, 20_000);

  it('closes a connection whose lapsed name someone else took meanwhile', async () => {
    const room = 'lapsed-room';
    const sign = (name: string) => one.app.get(RoomTokenService).sign(room, name);
    const first = two.connect(room, sign('Dana'));
    await first.next(isPresence('Dana', true));
    // Dana's entry is lost (as after a Redis restart without data) and another Dana joins:
    // whichever of the two is in the room first keeps the name (a refresh of the first may
    // come before the second's join); the other is told and closed, never both in.
    await plain.del(`chat:{${room}}:presence`);
    const second = one.connect(room, sign('Dana'));
    const outcome = (client: RawClient) => {
      let code: number | null = null;
      void client.closed.then((closed) => (code = closed.code));
      return () => code;
    };
    const [firstClosed, secondClosed] = [outcome(first), outcome(second)];
    await until(async () => {
      await two.app.get(PresenceKeeper).tick();
      return firstClosed() !== null || secondClosed() !== null;
    }, 5000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await two.app.get(PresenceKeeper).tick();
    expect([firstClosed(), secondClosed()].sort()).toEqual([CloseCode.NameTaken, null].sort());
    const refused = firstClosed() === null ? second : first;
    expect(await refused.nextOfType(FrameType.Error)).toMatchObject({
      code: ErrorCode.NameTaken,
    });
    await Promise.all([first.close(), second.close()]);
  });

  it('announces a participant again when its entry had been reaped', async () => {
    const room = 'back-room';
    const ann = await one.join(room, 'Ann');
    const bob = await two.join(room, 'Bob');
    await ann.next(isPresence('Bob', true));
    // Lose Bob's entry, as after a Redis restart without data; the next refresh brings him back.
    await plain.del(`chat:{${room}}:presence`);
    await two.app.get(PresenceKeeper).tick();
    expect(await ann.next(isPresence('Bob', true), 3000)).toMatchObject({ sender: 'Bob' });
    await ann.close();
    await bob.close();
  });
});
