import 'reflect-metadata';
import { type AddressInfo } from 'node:net';
import { type NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { type CreateRoomResponse, FrameType } from '@taco/protocol';
import { __resetOutOfContextForTests } from 'nestjs-pino/PinoLogger';
import { type DestinationStream } from 'pino';
import { type ClientOptions } from 'ws';
import { AppModule } from '../../src/app.module';
import { type RedisConnections } from '../../src/bus/redis/redis-connections';
import { RedisStorageDriver } from '../../src/bus/redis/redis-storage.driver';
import { StorageDriver } from '../../src/bus/storage-driver.port';
import { configureApp } from '../../src/app.setup';
import { Clock } from '../../src/common/clock';
import { createLogger } from '../../src/common/logging';
import { AppConfig } from '../../src/config/app-config';
import { loadConfig } from '../../src/config/load-config';
import { FakeClock } from './fake-clock';
import { credentials, RawClient, socketUrl as socketUrlOf } from '@taco/harness';

export const TEST_SECRET = 'test-secret-that-is-long-enough-for-hs256';

export interface TestApp {
  app: NestExpressApplication;
  config: AppConfig;
  clock: FakeClock;
  baseUrl: string;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  /** Credentials for a name in a room, asserting they were issued. */
  token(room: string, name: string): Promise<string>;
  socketUrl(room: string, token: string): string;
  /** Connects and waits until the server has sent the newcomer's own presence. */
  join(room: string, name: string, options?: ClientOptions): Promise<RawClient>;
  connect(room: string, token: string, options?: ClientOptions): RawClient;
  close(): Promise<void>;
}

/**
 * Boots the real application on a free port, with a fake clock and no web client. It logs only
 * fatal lines unless `overrides` say otherwise, as JSON lines to `logDestination` if given.
 */
export async function startTestApp(
  overrides: Partial<AppConfig> = {},
  logDestination?: DestinationStream,
): Promise<TestApp> {
  const base = loadConfig({ JWT_SECRET: TEST_SECRET, WEB_DIST: 'off', LOG_LEVEL: 'fatal' }, false);
  // Tests ask for many tokens from one address; the limit itself has its own tests.
  const config = new AppConfig({ ...base, credentialsPerMinute: 100_000, ...overrides });
  const clock = new FakeClock();
  // nestjs-pino keeps one logger per process: this application's must be the one in use.
  __resetOutOfContextForTests();
  const moduleRef = await Test.createTestingModule({
    imports: [AppModule.forRoot(config, createLogger(config, logDestination))],
  })
    .overrideProvider(Clock)
    .useValue(clock)
    .compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({
    bodyParser: false,
    bufferLogs: true,
  });
  configureApp(app, config);
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const clients: RawClient[] = [];

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  const token = (room: string, name: string) => credentials(baseUrl, room, name);

  const socketUrl = (room: string, t: string) => socketUrlOf(baseUrl, room, { token: t });

  const connect = (room: string, t: string, options?: ClientOptions) => {
    const client = RawClient.connect(socketUrl(room, t), options);
    clients.push(client);
    return client;
  };

  const join = async (room: string, name: string, options?: ClientOptions) => {
    const client = connect(room, await token(room, name), options);
    await client.next((frame) => frame.type === FrameType.Presence && frame.sender === name);
    // The room frame closes the join (protocol/README.md §5.1): taken, so tests read what follows.
    await client.nextOfType(FrameType.Room);
    return client;
  };

  return {
    app,
    config,
    clock,
    baseUrl,
    post,
    token,
    socketUrl,
    join,
    connect,
    close: async () => {
      for (const client of clients) client.socket.terminate();
      await app.close();
    },
  };
}

/**
 * One application for the enclosing describe block, started before its tests and closed after
 * them: the object returned is filled in once it has started.
 */
export function useTestApp(): TestApp {
  const shared = {} as TestApp;
  beforeAll(async () => {
    Object.assign(shared, await startTestApp());
  });
  afterAll(() => shared.close());
  return shared;
}

export type { CreateRoomResponse };

/** The Redis connections of an application started with a Redis driver. */
export function redisOf(app: TestApp): RedisConnections {
  const driver = app.app.get(StorageDriver);
  if (!(driver instanceof RedisStorageDriver)) throw new Error('The application runs embedded');
  return driver.redis;
}
