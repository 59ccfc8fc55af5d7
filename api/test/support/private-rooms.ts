import { ApiPath, FrameType, type CreateRoomResponse, type ServerRoomFrame } from '@taco/protocol';
import { isPresence, type RawClient, type RedisCluster, startRedisCluster } from '@taco/harness';
import { Cluster } from 'ioredis';
import { roomKeys } from '../../src/bus/redis/redis-keys';
import { RedisServer } from './redis-server';
import { startTestApp, TEST_SECRET, type TestApp } from './test-app';

/**
 * The setups private rooms are tested on (private-rooms and private-room-controls): the embedded
 * driver, two replicas sharing Redis, and two replicas of a Redis Cluster. `one` and `two` are the
 * replicas a test talks to (the same application when embedded).
 */
export interface Setup {
  one: TestApp;
  two: TestApp;
  /** How many messages storage holds for a room (a shared driver's list itself), if it can tell. */
  stored?(room: string): Promise<number>;
  /** Drops every replica's subscriber connection (a shared driver's), as a network fault would. */
  dropSubscribers?(): Promise<void>;
  stop(): Promise<void>;
}

export const KEY = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8';
/** Presence is renewed often here, so a replica that missed a room frame catches up quickly. */
const REFRESH_MS = 300;

async function replicas(shared: Parameters<typeof startTestApp>[0]): Promise<[TestApp, TestApp]> {
  const common = { ...shared, jwtSecret: TEST_SECRET, presenceRefreshMs: REFRESH_MS };
  const one = await startTestApp({ ...common, replicaId: 'one' });
  const two = await startTestApp({ ...common, replicaId: 'two' });
  return [one, two];
}

export const setups: [string, () => Promise<Setup>][] = [
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

/**
 * Starts `start`'s setup for a describe block and gives each test a room of its own (both handed
 * to the block through `onSetup` and `onRoom`). Returns the tests' ways into their room: create
 * it, enter it, join it as a member, control it.
 */
export function useSetup(
  start: () => Promise<Setup>,
  onSetup: (setup: Setup) => void,
  onRoom: (room: string) => void,
) {
  let setup: Setup | undefined;
  let room = '';
  let counter = 0;
  beforeAll(async () => {
    onSetup((setup = await start()));
  }, 90_000);
  afterAll(() => setup?.stop());
  beforeEach(() => {
    onRoom((room = `private-${++counter}-${Date.now().toString(36)}`));
  });
  const current = () => setup as Setup;
  const currentRoom = () => room;
  const post = async (app: TestApp, path: string, body: unknown, headers = {}) => {
    const response = await app.post(path, body, headers);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  /** Creates `room` as `name` with `settings`, and returns the creator's token. */
  async function createRoom(name: string, settings: object = {}): Promise<string> {
    const made = await post(current().one, ApiPath.createRoom, {
      room_id: currentRoom(),
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
    const client = app.connect(currentRoom(), token);
    await client.next(isPresence(name, true));
    return [client, await client.nextOfType<ServerRoomFrame>(FrameType.Room)];
  }

  async function member(app: TestApp, name: string): Promise<[RawClient, string]> {
    const token = await app.token(currentRoom(), name);
    const [client] = await enter(app, name, token);
    return [client, token];
  }

  const control = (client: RawClient, frame: object) =>
    client.send({ type: FrameType.Room, ...frame });

  return { post, createRoom, enter, member, control };
}
