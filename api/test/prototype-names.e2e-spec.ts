import {
  ApiPath,
  type CreateRoomResponse,
  FrameType,
  type RoomInfoResponse,
  type RoomTicketResponse,
  type ServerHistoryFrame,
  type ServerMessageFrame,
  type ServerPresenceFrame,
} from '@taco/protocol';
import {
  isHistory,
  isLive,
  isPresence,
  RawClient,
  type RedisCluster,
  startRedisCluster,
} from '@taco/harness';
import { PROTOTYPE_ROOM_IDS, PROTOTYPE_USER_NAMES } from './support/prototype-names';
import { RedisServer } from './support/redis-server';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * People named `constructor`, `__proto__` or `toString`, and rooms with such ids, are like any
 * other: the contract accepts them, so every driver must keep them apart from what a plain
 * object inherits.
 */
async function participants(app: TestApp, room: string): Promise<number> {
  const response = await fetch(`${app.baseUrl}${ApiPath.roomInfo(room)}`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as RoomInfoResponse;
  expect(body.room_id).toBe(room);
  return body.participants;
}

/** The senders of the presence frames a client holds, by whether they connect. */
async function roster(client: RawClient): Promise<string[]> {
  return (await client.drain())
    .filter((f): f is ServerPresenceFrame => f.type === FrameType.Presence && f.connecting)
    .map((f) => f.sender);
}

/** Joins through a single-use ticket, as the web client does. */
async function joinWithTicket(app: TestApp, room: string, name: string): Promise<RawClient> {
  const token = await app.token(room, name);
  const response = await fetch(`${app.baseUrl}${ApiPath.roomTicket(room)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(201);
  const { ticket } = (await response.json()) as RoomTicketResponse;
  const url = `ws${app.baseUrl.slice('http'.length)}${ApiPath.roomSocketWithTicket(room, ticket)}`;
  const client = RawClient.connect(url, undefined, name);
  await client.next(isPresence(name, true));
  return client;
}

function describePrototypeNames(driver: string, start: () => Promise<TestApp[]>) {
  describe(`Names and room ids that are Object.prototype properties (${driver})`, () => {
    let apps: TestApp[];
    /** The replica the i-th client joins through: every other one when there are two. */
    const appFor = (i: number) => apps[i % apps.length] as TestApp;

    beforeAll(async () => {
      apps = await start();
    }, 90_000);
    afterAll(async () => {
      for (const app of apps ?? []) await app.close();
    });

    it('lists and counts people with such names, and carries their messages, history, typing and clears', async () => {
      const room = `proto-names-${driver}`;
      const people = new Map<string, RawClient>();
      for (const [i, name] of PROTOTYPE_USER_NAMES.entries()) {
        people.set(name, await appFor(i).join(room, name));
      }
      const watcher = await appFor(1).join(room, 'Watcher');
      // The roster a newcomer gets (after its own presence, which `join` took) names everyone, once.
      expect((await roster(watcher)).sort()).toEqual([...PROTOTYPE_USER_NAMES].sort());
      for (const app of apps) {
        expect(await participants(app, room)).toBe(PROTOTYPE_USER_NAMES.length + 1);
      }

      for (const [name, client] of people) {
        // The client's own id for the message is as free as a name.
        client.send({ type: FrameType.Message, body: `hello from ${name}`, client_id: name });
        const echo = await client.next<ServerMessageFrame>(
          (f) => isLive(f) && f.type === FrameType.Message && f.sender === name,
        );
        expect(echo).toMatchObject({ sender: name, body: `hello from ${name}`, client_id: name });
      }
      const seen: ServerMessageFrame[] = [];
      for (let i = 0; i < people.size; i++) {
        seen.push(await watcher.next<ServerMessageFrame>(isLive));
      }
      expect(seen.map((m) => [m.sender, m.body])).toEqual(
        PROTOTYPE_USER_NAMES.map((name) => [name, `hello from ${name}`]),
      );

      watcher.send({ type: FrameType.History, count: 100 });
      const history = await watcher.next<ServerHistoryFrame>(isHistory);
      expect(history.messages.map((m) => [m.sender, m.body])).toEqual(
        PROTOTYPE_USER_NAMES.map((name) => [name, `hello from ${name}`]),
      );

      for (const [name, client] of people) {
        client.send({ type: FrameType.Typing, typing: true });
        expect(await watcher.nextOfType(FrameType.Typing)).toEqual({
          type: FrameType.Typing,
          room,
          sender: name,
          typing: true,
        });
      }
      const [clearer = '', clearing] = [...people][0] ?? [];
      clearing?.send({ type: FrameType.Clear });
      expect(await watcher.nextOfType(FrameType.Clear)).toEqual({
        type: FrameType.Clear,
        room,
        sender: clearer,
      });

      for (const [name, client] of people) {
        await client.close();
        expect(await watcher.next(isPresence(name, false))).toMatchObject({ room });
      }
      for (const app of apps) expect(await participants(app, room)).toBe(1);
      await watcher.close();
    }, 60_000);

    it('renames into and out of such names, and frees and takes them like any other', async () => {
      const room = `proto-renames-${driver}`;
      const watcher = await appFor(0).join(room, 'Watcher');
      for (const [i, name] of PROTOTYPE_USER_NAMES.entries()) {
        const app = appFor(i + 1);
        const client = await app.join(room, `Before ${i}`);
        await watcher.next(isPresence(`Before ${i}`, true));
        client.send({ type: FrameType.Rename, token: await app.token(room, name) });
        expect(await watcher.next(isPresence(name, true))).toMatchObject({
          renamed_from: `Before ${i}`,
        });
        expect(await watcher.next(isPresence(`Before ${i}`, false))).toMatchObject({
          renamed_to: name,
        });
        // Taken while its holder is here; the old name is free again.
        const again = await app.post(ApiPath.roomCredentials(room), { sender_id: name });
        expect(again.status).toBe(409);
        expect(
          (await app.post(ApiPath.roomCredentials(room), { sender_id: `Before ${i}` })).status,
        ).toBe(200);
        client.send({ type: FrameType.Rename, token: await app.token(room, `After ${i}`) });
        expect(await watcher.next(isPresence(`After ${i}`, true))).toMatchObject({
          renamed_from: name,
        });
        expect(await watcher.next(isPresence(name, false))).toMatchObject({
          renamed_to: `After ${i}`,
        });
        expect(await participants(app, room)).toBe(2);
        await client.close();
        await watcher.next(isPresence(`After ${i}`, false));
      }
      await watcher.close();
    }, 60_000);

    it('creates, joins, counts and keeps history for rooms with such ids', async () => {
      for (const [i, room] of PROTOTYPE_ROOM_IDS.entries()) {
        const one = appFor(i);
        const two = appFor(i + 1);
        const created = await one.post(ApiPath.createRoom, { room_id: room, sender: 'Ann' });
        expect(created.status).toBe(201);
        expect(((await created.json()) as CreateRoomResponse).room).toBe(room);
        expect(await participants(one, room)).toBe(0);
        const ann = await joinWithTicket(one, room, 'Ann');
        const bob = await two.join(room, 'Bob');
        expect(await ann.next(isPresence('Bob', true))).toMatchObject({ room });
        for (const app of apps) expect(await participants(app, room)).toBe(2);

        ann.send({ type: FrameType.Message, body: `hello ${room}`, client_id: 'c1' });
        expect(await bob.next(isLive)).toMatchObject({
          room,
          sender: 'Ann',
          body: `hello ${room}`,
          seq: 1,
        });
        bob.send({ type: FrameType.History, count: 10 });
        expect((await bob.next<ServerHistoryFrame>(isHistory)).messages.map((m) => m.body)).toEqual(
          [`hello ${room}`],
        );

        await bob.close();
        expect(await ann.next(isPresence('Bob', false))).toMatchObject({ room });
        expect(await participants(two, room)).toBe(1);
        await ann.close();
      }
      // Nothing leaked between them: each room holds its own message only.
      const last = PROTOTYPE_ROOM_IDS.at(-1) ?? '';
      const cyd = await appFor(0).join(last, 'Cyd');
      cyd.send({ type: FrameType.History, count: 10 });
      expect((await cyd.next<ServerHistoryFrame>(isHistory)).messages.map((m) => m.body)).toEqual([
        `hello ${last}`,
      ]);
      await cyd.close();
    }, 90_000);
  });
}

it('tests every name that a plain object inherits and the contract accepts', () => {
  for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
    expect(PROTOTYPE_USER_NAMES).toContain(name);
    expect(PROTOTYPE_ROOM_IDS).toContain(name);
  }
});

describePrototypeNames('memory', async () => [await startTestApp()]);

let server: RedisServer | undefined;
describePrototypeNames('redis', async () => {
  server = await RedisServer.start();
  return [
    await startTestApp({ redisUrl: server.url, replicaId: 'one' }),
    await startTestApp({ redisUrl: server.url, replicaId: 'two' }),
  ];
});
afterAll(() => server?.dispose());

let cluster: RedisCluster | undefined;
describePrototypeNames('redis-cluster', async () => {
  cluster = await startRedisCluster();
  await cluster.waitUntilHealthy(30_000);
  const nodes = cluster.nodes.map(({ port }) => ({ host: '127.0.0.1', port }));
  return [
    await startTestApp({ redisClusterNodes: nodes, replicaId: 'one' }),
    await startTestApp({ redisClusterNodes: nodes, replicaId: 'two' }),
  ];
});
afterAll(() => cluster?.stop());
