import {
  ApiPath,
  CloseCode,
  CloseReason,
  E2E_BODY_MAX_LENGTH,
  ErrorCode,
  FrameErrorMessage,
  FrameType,
  NAME_REMOVED_MESSAGE,
  REMOVED_MESSAGE,
  ROOM_EXISTS_MESSAGE,
  ROOM_LOCKED_MESSAGE,
  type CreateRoomResponse,
  type RoomInfoResponse,
  type ServerRoomFrame,
} from '@taco/protocol';
import { roomCipher } from '@taco/protocol/e2e-crypto';
import { isError, isHistory, isLive, isPresence, type RawClient } from '@taco/harness';
import { type RedisCluster, startRedisCluster } from '@taco/harness';
import { Cluster } from 'ioredis';
import { nameForms } from '../src/bus/name-claim';
import { roomKeys } from '../src/bus/redis/redis-keys';
import { RoomSettingsStore } from '../src/bus/room-settings.port';
import { RedisServer } from './support/redis-server';
import { roomSettings } from './support/room-settings';
import { until } from './support/until';
import { say } from './support/chat-socket';
import { startTestApp, TEST_SECRET, type TestApp } from './support/test-app';

/**
 * Private rooms over the wire (protocol/README.md §2.2–§2.6, §5, §6.9–§6.12): encrypted rooms,
 * the creator's lock, removal and hand-over, on the embedded driver, on two replicas sharing
 * Redis, and on two replicas of a Redis Cluster. `one` and `two` are the replicas a test talks to
 * (the same application when embedded).
 */

interface Setup {
  one: TestApp;
  two: TestApp;
  /** How many messages storage holds for a room (a shared driver's list itself), if it can tell. */
  stored?(room: string): Promise<number>;
  /** Drops every replica's subscriber connection (a shared driver's), as a network fault would. */
  dropSubscribers?(): Promise<void>;
  stop(): Promise<void>;
}

const KEY = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8';
/** Presence is renewed often here, so a replica that missed a room frame catches up quickly. */
const REFRESH_MS = 300;

async function replicas(shared: Parameters<typeof startTestApp>[0]): Promise<[TestApp, TestApp]> {
  const common = { ...shared, jwtSecret: TEST_SECRET, presenceRefreshMs: REFRESH_MS };
  const one = await startTestApp({ ...common, replicaId: 'one' });
  const two = await startTestApp({ ...common, replicaId: 'two' });
  return [one, two];
}

const setups: [string, () => Promise<Setup>][] = [
  [
    'embedded',
    async () => {
      const app = await startTestApp({ presenceRefreshMs: REFRESH_MS });
      return { one: app, two: app, stop: () => app.close() };
    },
  ],
  [
    'two replicas sharing Redis',
    async () => {
      const redis = await RedisServer.start();
      const plain = redis.client();
      const [one, two] = await replicas({ redisUrl: redis.url });
      return {
        one,
        two,
        stored: (room) => plain.llen(roomKeys(room).log),
        dropSubscribers: async () => {
          await plain.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
        },
        stop: async () => {
          await one.close();
          await two.close();
          plain.disconnect();
          await redis.dispose();
        },
      };
    },
  ],
  [
    'two replicas on a Redis Cluster',
    async () => {
      const cluster: RedisCluster = await startRedisCluster();
      const redisClusterNodes = cluster.nodes.map(({ port }) => ({ host: '127.0.0.1', port }));
      const [one, two] = await replicas({ redisClusterNodes });
      const plain = new Cluster(redisClusterNodes);
      return {
        one,
        two,
        stored: (room) => plain.llen(roomKeys(room).log),
        dropSubscribers: async () => {
          await Promise.all(
            plain.nodes('master').map((node) => node.call('CLIENT', 'KILL', 'TYPE', 'pubsub')),
          );
        },
        stop: async () => {
          await one.close();
          await two.close();
          plain.disconnect();
          await cluster.stop();
        },
      };
    },
  ],
];

describe.each(setups)('Private rooms: %s', (label, start) => {
  let setup: Setup;
  let counter = 0;
  let room: string;

  beforeAll(async () => {
    setup = await start();
  }, 90_000);
  afterAll(() => setup?.stop());
  beforeEach(() => {
    room = `private-${++counter}-${Date.now().toString(36)}`;
  });

  const post = async (app: TestApp, path: string, body: unknown, headers = {}) => {
    const response = await app.post(path, body, headers);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  /** Creates `room` as `name` with `settings`, and returns the creator's token. */
  async function createRoom(name: string, settings: object = {}): Promise<string> {
    const made = await post(setup.one, ApiPath.createRoom, {
      room_id: room,
      sender: name,
      ...settings,
    });
    expect(made).toMatchObject({ status: 201, body: { creator: true } });
    return (made.body as unknown as CreateRoomResponse).token;
  }

  /** Opens a socket with `token` on `app` and reads its join: roster, then the room frame. */
  async function enter(
    app: TestApp,
    name: string,
    token: string,
  ): Promise<[RawClient, ServerRoomFrame]> {
    const client = app.connect(room, token);
    await client.next(isPresence(name, true));
    return [client, await client.nextOfType<ServerRoomFrame>(FrameType.Room)];
  }

  async function member(app: TestApp, name: string): Promise<[RawClient, string]> {
    const token = await app.token(room, name);
    const [client] = await enter(app, name, token);
    return [client, token];
  }

  const control = (client: RawClient, frame: object) =>
    client.send({ type: FrameType.Room, ...frame });

  it('creates a room with its settings once, and tells everyone who asks what it is', async () => {
    const settings = {
      encrypted: true,
      key_check: 'kCkgsYkkv54-WIGsWY4ydg',
      disappear_after: 86_400,
    };
    expect(
      await post(setup.one, ApiPath.createRoom, { room_id: room, sender: ' Ann ', ...settings }),
    ).toEqual({
      status: 201,
      body: {
        name: 'Ann',
        room,
        token: expect.any(String) as unknown,
        creator: true,
        settings: roomSettings({ ...settings, creator: 'Ann' }),
      },
    });
    // Settings are the creator's: a latecomer asking for some is refused, one without joins.
    expect(
      await post(setup.two, ApiPath.createRoom, { room_id: room, sender: 'Bob', ...settings }),
    ).toEqual({
      status: 409,
      body: { statusCode: 409, error: 'Conflict', message: ROOM_EXISTS_MESSAGE },
    });
    expect(
      await post(setup.two, ApiPath.createRoom, { room_id: room, sender: 'Bob' }),
    ).toMatchObject({
      status: 201,
      body: { name: 'Bob', creator: false, settings: { encrypted: true, creator: 'Ann' } },
    });
    const info = await fetch(`${setup.two.baseUrl}${ApiPath.roomInfo(room)}`);
    expect((await info.json()) as RoomInfoResponse).toEqual({
      room_id: room,
      participants: 0,
      settings: roomSettings(settings),
    });
    const unknown = await fetch(`${setup.two.baseUrl}${ApiPath.roomInfo(`${room}-none`)}`);
    expect(await unknown.json()).toMatchObject({ settings: null });
  });

  it.each<[string, object, string]>([
    [
      'encrypted that is not a boolean',
      { encrypted: 'yes' },
      "Field 'encrypted' must be true or false",
    ],
    [
      'encrypted without a key check',
      { encrypted: true },
      'An encrypted room needs a key check of 22 base64url characters',
    ],
    [
      'a key check of the wrong shape',
      { encrypted: true, key_check: 'short' },
      'An encrypted room needs a key check of 22 base64url characters',
    ],
    [
      'a disappearing time not offered',
      { disappear_after: 60 },
      "Field 'disappear_after' must be one of 0, 3600, 86400, 604800",
    ],
  ])('refuses a create with %s, and makes nothing', async (_what, settings, message) => {
    expect(
      await post(setup.one, ApiPath.createRoom, { room_id: room, sender: 'Ann', ...settings }),
    ).toEqual({
      status: 400,
      body: { statusCode: 400, error: 'Bad Request', message: [message] },
    });
    const info = await fetch(`${setup.one.baseUrl}${ApiPath.roomInfo(room)}`);
    expect(await info.json()).toMatchObject({ settings: null });
  });

  it('stores and relays only ciphertext in an encrypted room, history and the largest included', async () => {
    const cipher = await roomCipher(KEY, room);
    const annToken = await createRoom('Ann', { encrypted: true, key_check: cipher.keyCheck });
    const [ann, annRoom] = await enter(setup.one, 'Ann', annToken);
    expect(annRoom).toEqual({
      type: FrameType.Room,
      room,
      encrypted: true,
      key_check: cipher.keyCheck,
      locked: false,
      disappear_after: 0,
      creator: 'Ann',
      is_creator: true,
    });
    const bobToken = await setup.two.token(room, 'Bob');
    const [bob, bobRoom] = await enter(setup.two, 'Bob', bobToken);
    expect(bobRoom).toMatchObject({ encrypted: true, key_check: cipher.keyCheck });
    ann.send({ type: FrameType.Message, body: 'hello in the clear', client_id: 'p-1' });
    expect(await ann.next(isError(ErrorCode.EncryptedRoom))).toEqual({
      type: FrameType.Error,
      code: ErrorCode.EncryptedRoom,
      message: FrameErrorMessage.encryptedRoom,
      client_id: 'p-1',
    });
    const body = await cipher.encrypt('hello, taco 🌮');
    ann.send({ type: FrameType.Message, body, client_id: 'c-1' });
    expect(await bob.next(isLive)).toMatchObject({ body, sender: 'Ann' });
    expect(await cipher.decrypt(body)).toBe('hello, taco 🌮');
    // The longest text's ciphertext: a frame over 16 KiB, within the encrypted room's 24 KiB.
    const longest = await cipher.encrypt('🌮'.repeat(4000));
    expect(longest.length).toBe(E2E_BODY_MAX_LENGTH);
    bob.send({ type: FrameType.Message, body: longest, client_id: 'c-2' });
    const fromBob = await ann.next((frame) => isLive(frame) && frame.sender === 'Bob');
    expect(fromBob).toMatchObject({ body: longest });
    const [reader] = await member(setup.two, 'Cleo');
    reader.send({ type: FrameType.History, count: 10 });
    const history = await reader.next(isHistory);
    expect(history).toMatchObject({ messages: [{ body }, { body: longest }] });
  });

  it('tells the key check in every room frame, a change’s on the other replica too', async () => {
    const { keyCheck } = await roomCipher(KEY, room);
    const annToken = await createRoom('Ann', { encrypted: true, key_check: keyCheck });
    const [ann] = await enter(setup.one, 'Ann', annToken);
    const [bob] = await member(setup.two, 'Bob');
    control(ann, { action: 'lock' });
    const change = { encrypted: true, key_check: keyCheck, event: { action: 'lock', by: 'Ann' } };
    expect(await ann.nextOfType(FrameType.Room)).toMatchObject(change);
    expect(await bob.nextOfType(FrameType.Room)).toMatchObject(change);
    // A control that changes nothing is answered with the room frame alone: it carries it too.
    control(ann, { action: 'lock' });
    expect(await ann.nextOfType(FrameType.Room)).toMatchObject({ key_check: keyCheck });
  });

  it('refuses a ciphertext in a plain room, and a frame over 16 KiB there', async () => {
    const cipher = await roomCipher(KEY, room);
    const token = await setup.one.token(room, 'Ann');
    const [ann, annRoom] = await enter(setup.one, 'Ann', token);
    // A plain room, created or not, tells its key check as null.
    expect(annRoom).toMatchObject({ encrypted: false, key_check: null });
    ann.send({ type: FrameType.Message, body: await cipher.encrypt('secret'), client_id: 'x' });
    expect(await ann.next(isError(ErrorCode.PlainRoom))).toMatchObject({
      message: FrameErrorMessage.plainRoom,
      client_id: 'x',
    });
    ann.send({ type: FrameType.Message, body: 'x'.repeat(17_000) });
    expect(await ann.closed).toMatchObject({ code: CloseCode.TooBig });
  });

  it('lets only the creator lock: newcomers refused, members keep their way in', async () => {
    const annToken = await createRoom('Ann');
    const [ann] = await enter(setup.one, 'Ann', annToken);
    const [bob, bobToken] = await member(setup.two, 'Bob');
    control(bob, { action: 'lock', client_id: 'l-1' });
    expect(await bob.next(isError(ErrorCode.NotCreator))).toEqual({
      type: FrameType.Error,
      code: ErrorCode.NotCreator,
      message: FrameErrorMessage.notCreator,
      client_id: 'l-1',
    });
    control(ann, { action: 'lock' });
    const locked = { locked: true, event: { action: 'lock', by: 'Ann' } };
    expect(await ann.nextOfType(FrameType.Room)).toMatchObject({ ...locked, is_creator: true });
    expect(await bob.nextOfType(FrameType.Room)).toMatchObject({ ...locked, is_creator: false });
    for (const path of [ApiPath.roomCredentials(room), ApiPath.createRoom]) {
      expect(await post(setup.two, path, { room_id: room, sender_id: 'Dora' })).toEqual({
        status: 423,
        body: { statusCode: 423, error: 'Locked', message: ROOM_LOCKED_MESSAGE },
      });
    }
    // A member renames with its own token shown; its token still opens a socket.
    const rename = await post(
      setup.two,
      ApiPath.roomCredentials(room),
      { sender_id: 'Bobby' },
      { authorization: `Bearer ${bobToken}` },
    );
    expect(rename).toMatchObject({ status: 200, body: { sender_id: 'Bobby' } });
    const [again] = await enter(setup.one, 'Bob', bobToken);
    again.socket.close();
    // Locking a locked room changes nothing: the creator alone hears the room as it is.
    control(ann, { action: 'lock' });
    expect(await ann.nextOfType(FrameType.Room)).toEqual(
      expect.not.objectContaining({ event: expect.anything() as unknown }),
    );
    control(ann, { action: 'unlock' });
    expect(await bob.nextOfType(FrameType.Room)).toMatchObject({
      locked: false,
      event: { action: 'unlock', by: 'Ann' },
    });
    expect(
      await post(setup.two, ApiPath.roomCredentials(room), { sender_id: 'Dora' }),
    ).toMatchObject({
      status: 200,
    });
  });

  it('removes a participant everywhere at once: sockets, tickets, tokens and the name', async () => {
    const annToken = await createRoom('Ann');
    const [ann] = await enter(setup.one, 'Ann', annToken);
    const [cleo, cleoToken] = await member(setup.two, 'Cleo');
    const otherTab = setup.one.connect(room, cleoToken);
    await otherTab.nextOfType(FrameType.Room);
    control(ann, { action: 'remove', name: 'Ann', client_id: 'r-0' });
    expect(await ann.next(isError(ErrorCode.NotPresent))).toMatchObject({ client_id: 'r-0' });
    control(ann, { action: 'remove', name: 'Nobody' });
    expect(await ann.next(isError(ErrorCode.NotPresent))).toMatchObject({
      message: FrameErrorMessage.notPresent,
    });
    control(ann, { action: 'remove', name: ' cleo ' });
    expect(await cleo.closed).toEqual({ code: CloseCode.Removed, reason: CloseReason.Removed });
    expect(await otherTab.closed).toMatchObject({ code: CloseCode.Removed });
    expect(await ann.nextOfType(FrameType.Room)).toMatchObject({
      event: { action: 'remove', by: 'Ann', name: 'Cleo' },
    });
    expect(await ann.next(isPresence('Cleo', false))).toMatchObject({ room });
    expect(
      await post(setup.two, ApiPath.roomTicket(room), undefined, {
        authorization: `Bearer ${cleoToken}`,
      }),
    ).toEqual({
      status: 403,
      body: { statusCode: 403, error: 'Forbidden', message: REMOVED_MESSAGE },
    });
    const back = setup.one.connect(room, cleoToken);
    expect(await back.closed).toEqual({ code: CloseCode.Removed, reason: CloseReason.Removed });
    for (const name of ['Cleo', 'CLEO']) {
      expect(await post(setup.two, ApiPath.roomCredentials(room), { sender_id: name })).toEqual({
        status: 403,
        body: { statusCode: 403, error: 'Forbidden', message: NAME_REMOVED_MESSAGE },
      });
    }
  });

  it('hands the creator right over, and moves it with a rename', async () => {
    const annToken = await createRoom('Ann');
    const [ann] = await enter(setup.one, 'Ann', annToken);
    const [bob] = await member(setup.two, 'Bob');
    control(ann, { action: 'hand_over', name: 'bob' });
    const handed = { creator: 'Bob', event: { action: 'hand_over', by: 'Ann', name: 'Bob' } };
    expect(await ann.nextOfType(FrameType.Room)).toMatchObject({ ...handed, is_creator: false });
    expect(await bob.nextOfType(FrameType.Room)).toMatchObject({ ...handed, is_creator: true });
    control(ann, { action: 'lock', client_id: 'old' });
    expect(await ann.next(isError(ErrorCode.NotCreator))).toMatchObject({ client_id: 'old' });
    // Bob renames: the right follows his new token, and the room hears the new name.
    bob.send({ type: FrameType.Rename, token: await setup.two.token(room, 'Robert') });
    expect(await ann.nextOfType(FrameType.Room)).toMatchObject({
      creator: 'Robert',
      is_creator: false,
    });
    expect(await bob.nextOfType(FrameType.Room)).toMatchObject({
      creator: 'Robert',
      is_creator: true,
    });
    control(bob, { action: 'disappear', after: 86_400 });
    expect(await ann.nextOfType(FrameType.Room)).toMatchObject({
      disappear_after: 86_400,
      event: { action: 'disappear', by: 'Robert', after: 86_400 },
    });
    control(bob, { action: 'disappear', after: 60, client_id: 'd' });
    expect(await bob.next(isError(ErrorCode.BadFrame))).toEqual({
      type: FrameType.Error,
      code: ErrorCode.BadFrame,
      message: "Field 'after' must be one of 0, 3600, 86400, 604800",
      client_id: 'd',
    });
  });

  /** Sets both replicas' clocks `offsetMs` from now: messages are stamped then. */
  const stampAt = (offsetMs: number) => {
    for (const app of [setup.one, setup.two]) {
      app.clock.advance(Date.now() + offsetMs - app.clock.now());
    }
  };

  async function historyOf(client: RawClient): Promise<string[]> {
    client.send({ type: FrameType.History, count: 50 });
    const page = (await client.next(isHistory)) as { messages: { body: string }[] };
    return page.messages.map((message) => message.body);
  }

  /** Waits until storage itself holds `count` messages of the room (when the driver can tell). */
  async function storedIs(count: number): Promise<void> {
    const stored = setup.stored;
    if (stored) await until(async () => (await stored(room)) === count, 5000);
  }

  it('deletes disappearing messages from history and storage once expired, and on a change', async () => {
    const annToken = await createRoom('Ann', { disappear_after: 86_400 });
    const [ann] = await enter(setup.one, 'Ann', annToken);
    const [bob] = await member(setup.two, 'Bob');
    try {
      stampAt(-26 * 3600_000);
      await say(ann, 'said yesterday', 'm-1');
      stampAt(-2 * 3600_000);
      await say(ann, 'said two hours ago', 'm-2');
      stampAt(-30 * 60_000);
      await say(bob, 'said half an hour ago', 'm-3');
      stampAt(0);
      expect(await historyOf(bob)).toEqual(['said two hours ago', 'said half an hour ago']);
      await storedIs(2);
      // Shortened to an hour: what is two hours old goes at once, from history and from storage.
      control(ann, { action: 'disappear', after: 3600 });
      expect(await bob.nextOfType(FrameType.Room)).toMatchObject({
        disappear_after: 3600,
        event: { action: 'disappear', by: 'Ann', after: 3600 },
      });
      await storedIs(1);
      expect(await historyOf(ann)).toEqual(['said half an hour ago']);
      // Off: nothing disappears any more.
      control(ann, { action: 'disappear', after: 0 });
      await bob.nextOfType(FrameType.Room);
      stampAt(2 * 3600_000);
      await say(ann, 'said later', 'm-4');
      expect(await historyOf(bob)).toEqual(['said half an hour ago', 'said later']);
      await storedIs(2);
    } finally {
      stampAt(0);
    }
  }, 30_000);

  // Within one process a room frame cannot be missed: only the shared drivers have this case.
  if (label === 'embedded') return;

  it('closes a removed holder whose replica missed the room frame, once its subscription is back', async () => {
    const annToken = await createRoom('Ann');
    const [ann] = await enter(setup.one, 'Ann', annToken);
    const [bob] = await member(setup.two, 'Bob');
    // The removal stored, its room frame never published: as if replica two's subscription was
    // down when it went out.
    const creator = JSON.parse(
      Buffer.from(annToken.split('.')[1] ?? '', 'base64url').toString(),
    ) as { jti: string };
    const removed = await setup.one.app
      .get(RoomSettingsStore)
      .control(
        room,
        creator.jti,
        { action: 'remove', target: nameForms('Bob') },
        { holderMs: 60_000, nameMs: 60_000 },
      );
    expect(removed).toMatchObject({ done: true, target: { name: 'Bob' } });
    await setup.dropSubscribers?.();
    expect(await bob.closed).toEqual({ code: CloseCode.Removed, reason: CloseReason.Removed });
    expect(await ann.next(isPresence('Bob', false), 5000)).toMatchObject({ room });
  });
});
