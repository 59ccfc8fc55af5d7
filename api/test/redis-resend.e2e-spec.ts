import { createServer, connect, type Server, type Socket } from 'node:net';
import { FrameType, type ServerFrame } from '@taco/protocol';
import { type Redis } from 'ioredis';
import { roomKeys } from '../src/bus/redis/redis-keys';
import { RedisServer } from './support/redis-server';
import { startTestApp, type TestApp } from './support/test-app';
import { until } from './support/until';
import { isLive, type RawClient } from '@taco/harness';

/**
 * A TCP proxy in front of Redis that can keep Redis's answers from the next connection to send a
 * command, and then cut that connection: Redis ran the command, and its client never heard so.
 * ioredis sends such a command again once it has reconnected.
 */
class AnswerCutter {
  private holding = false;
  private victim: Socket | undefined;
  private readonly server: Server;

  private constructor(redisPort: number) {
    this.server = createServer((client) => {
      const redis = connect(redisPort, '127.0.0.1');
      client.on('data', (data) => {
        if (this.holding && this.victim === undefined) this.victim = client;
        redis.write(data);
      });
      redis.on('data', (data) => {
        if (!(this.holding && this.victim === client)) client.write(data);
      });
      client.on('close', () => redis.destroy());
      redis.on('close', () => client.destroy());
      client.on('error', () => undefined);
      redis.on('error', () => undefined);
    });
  }

  static async start(redisPort: number): Promise<AnswerCutter> {
    const cutter = new AnswerCutter(redisPort);
    await new Promise<void>((resolve) => cutter.server.listen(0, '127.0.0.1', resolve));
    return cutter;
  }

  get url(): string {
    return `redis://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  /** Keeps the answers from the next connection that sends anything. */
  hold(): void {
    this.holding = true;
    this.victim = undefined;
  }

  /** Cuts that connection, and lets answers through again. */
  cut(): void {
    this.victim?.destroy();
    this.holding = false;
  }

  close(): void {
    this.server.close();
  }
}

const isCleared = (frame: ServerFrame) => frame.type === FrameType.Clear;

describe('A storing call whose connection broke before Redis answered', () => {
  let redis: RedisServer;
  let cutter: AnswerCutter;
  let app: TestApp;
  let plain: Redis;

  beforeAll(async () => {
    redis = await RedisServer.start();
    cutter = await AnswerCutter.start(redis.port);
    app = await startTestApp({ redisUrl: cutter.url });
    plain = redis.client();
  });
  afterAll(async () => {
    plain?.disconnect();
    await app?.close();
    cutter?.close();
    await redis?.dispose();
  });

  /** Ann and Bob in `room`, after a first message (the scripts are loaded and answered once). */
  async function joined(room: string): Promise<[RawClient, RawClient]> {
    const ann = await app.join(room, 'Ann');
    const bob = await app.join(room, 'Bob');
    ann.send({ type: FrameType.Message, body: 'first', client_id: 'c0' });
    await bob.next(isLive);
    await ann.next(isLive);
    return [ann, bob];
  }

  it('stores and delivers the message once, and acknowledges it once', async () => {
    const room = 'sent-again';
    const [ann, bob] = await joined(room);
    cutter.hold();
    ann.send({ type: FrameType.Message, body: 'only once', client_id: 'c1' });
    await until(async () => (await plain.get(roomKeys(room).seq)) === '2');
    cutter.cut();
    expect(await bob.next(isLive, 5000)).toMatchObject({ body: 'only once', seq: 2 });
    expect(await ann.next(isLive, 5000)).toMatchObject({ client_id: 'c1', seq: 2 });
    // ioredis has sent the call again by now; Redis answered it from the call's key.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await bob.drain(0)).filter(isLive)).toEqual([]);
    expect((await ann.drain(0)).filter(isLive)).toEqual([]);
    expect(await plain.get(roomKeys(room).seq)).toBe('2');
    expect(await plain.llen(roomKeys(room).log)).toBe(2);
    await ann.close();
    await bob.close();
  });

  it('clears the room once: everyone gets one cleared frame', async () => {
    const room = 'cleared-again';
    const [ann, bob] = await joined(room);
    // A first clear, answered, then a message for the next one to clear.
    ann.send({ type: FrameType.Clear });
    await bob.next(isCleared);
    ann.send({ type: FrameType.Message, body: 'second', client_id: 'c1' });
    await bob.next(isLive);
    cutter.hold();
    ann.send({ type: FrameType.Clear });
    await until(async () => (await plain.exists(roomKeys(room).log)) === 0);
    cutter.cut();
    expect(await bob.next(isCleared, 5000)).toMatchObject({ sender: 'Ann' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await bob.drain(0)).filter(isCleared)).toEqual([]);
    // A message after the clear stays: a clear run again would take it away.
    ann.send({ type: FrameType.Message, body: 'after', client_id: 'c2' });
    expect(await bob.next(isLive, 5000)).toMatchObject({ body: 'after' });
    expect(await plain.llen(roomKeys(room).log)).toBe(1);
    await ann.close();
    await bob.close();
  });
});
