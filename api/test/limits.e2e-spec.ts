import {
  type ApiErrorBody,
  ApiPath,
  CloseCode,
  FrameType,
  RATE_LIMITED_MESSAGE,
  type RoomTicketResponse,
  TICKET_UNAUTHORIZED_MESSAGE,
} from '@taco/protocol';
import { type Redis } from 'ioredis';
import { RedisConnections } from '../src/bus/redis/redis-connections';
import { SHARED_KEYS } from '../src/bus/redis/redis-keys';
import { RedisConnectionLimiter } from '../src/bus/redis/redis-connection-limiter';
import { RedisIpRateLimiter } from '../src/bus/redis/redis-ip-rate-limiter';
import { ReplicaLease } from '../src/bus/redis/replica-lease';
import { freePorts, RawClient } from '@taco/harness';
import { RedisServer } from './support/redis-server';
import { startTestApp, type TestApp } from './support/test-app';
import { until } from './support/until';

/** Asks `app` for a ticket with `authorization` (none when undefined). */
function askTicket(app: TestApp, room: string, authorization?: string): Promise<Response> {
  return app.post(
    ApiPath.roomTicket(room),
    '',
    authorization === undefined ? {} : { authorization },
  );
}

async function ticketOf(app: TestApp, room: string, token: string): Promise<string> {
  const response = await askTicket(app, room, `Bearer ${token}`);
  expect(response.status).toBe(201);
  return ((await response.json()) as RoomTicketResponse).ticket;
}

function connectWithTicket(app: TestApp, room: string, ticket: string): RawClient {
  return RawClient.connect(
    `${app.baseUrl.replace(/^http/, 'ws')}${ApiPath.roomSocketWithTicket(room, ticket)}`,
  );
}

describe('Socket tickets (embedded)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('issues a new opaque ticket on every call for a valid Bearer token of the room', async () => {
    const token = await app.token('ticket-room', 'Ann');
    const first = await ticketOf(app, 'ticket-room', token);
    const second = await ticketOf(app, 'ticket-room', token);
    expect(first).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(second).not.toBe(first);
  });

  it.each([
    ['no Authorization header', undefined],
    ['a token that is not a JWT', 'Bearer nonsense'],
    ['another scheme', 'Basic abc'],
  ])('answers 401 for %s', async (_label, authorization) => {
    const response = await askTicket(app, 'ticket-room', authorization);
    expect(response.status).toBe(401);
    expect((await response.json()) as ApiErrorBody).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: TICKET_UNAUTHORIZED_MESSAGE,
    });
  });

  it('answers 401 for a token of another room', async () => {
    const token = await app.token('other-room', 'Ann');
    expect((await askTicket(app, 'ticket-room', `Bearer ${token}`)).status).toBe(401);
  });

  it('opens one socket as the token’s user, once; a used ticket closes 4401', async () => {
    const room = 'ticket-once';
    const ticket = await ticketOf(app, room, await app.token(room, 'Ann'));
    const ann = connectWithTicket(app, room, ticket);
    expect(
      await ann.next((frame) => frame.type === FrameType.Presence && frame.sender === 'Ann'),
    ).toMatchObject({ room, connecting: true });
    const again = connectWithTicket(app, room, ticket);
    expect((await again.closed).code).toBe(CloseCode.Unauthorized);
    ann.socket.close();
  });

  it('closes 4401 for a ticket of another room, and for an expired one', async () => {
    const token = await app.token('ticket-a', 'Ann');
    const forA = await ticketOf(app, 'ticket-a', token);
    expect((await connectWithTicket(app, 'ticket-b', forA).closed).code).toBe(
      CloseCode.Unauthorized,
    );
    // The ticket was spent by that attempt, so it fails for its own room too.
    expect((await connectWithTicket(app, 'ticket-a', forA).closed).code).toBe(
      CloseCode.Unauthorized,
    );
    const late = await ticketOf(app, 'ticket-a', token);
    app.clock.advance(30_001);
    expect((await connectWithTicket(app, 'ticket-a', late).closed).code).toBe(
      CloseCode.Unauthorized,
    );
  });
});

describe('Per-IP limits and tickets over two replicas sharing Redis', () => {
  let redis: RedisServer;
  let plain: Redis;
  let one: TestApp;
  let two: TestApp;

  /** Open sockets of 127.0.0.1 as Redis counts them, over every replica. */
  const openCount = async () => {
    const counts = await plain.hvals(SHARED_KEYS.connections('127.0.0.1'));
    return counts.reduce((sum, count) => sum + Number(count), 0);
  };

  beforeAll(async () => {
    redis = await RedisServer.start();
    plain = redis.client();
    const shared = { redisUrl: redis.url, credentialsPerMinute: 4, connectionsPerIp: 4 };
    one = await startTestApp({ ...shared, replicaId: 'one' });
    two = await startTestApp({ ...shared, replicaId: 'two' });
  });
  afterAll(async () => {
    await one.close();
    await two.close();
    plain.disconnect();
    await redis.dispose();
  });
  // Each test starts with no socket counted and the address's budgets full.
  beforeEach(async () => {
    await until(async () => (await openCount()) === 0);
    const budgets = await plain.keys(`${SHARED_KEYS.rateLimitPrefix('')}*`);
    if (budgets.length > 0) await plain.del(...budgets);
  });

  it('holds the credentials budget over both replicas, and tickets have a budget of their own', async () => {
    const tokens = [
      await one.token('budget', 'Ann'),
      await two.token('budget', 'Bob'),
      await one.token('budget', 'Cat'),
      await two.token('budget', 'Dan'),
    ];
    for (const app of [one, two]) {
      const refused = await app.post(ApiPath.roomCredentials('budget'), { sender_id: 'Eve' });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(((await refused.json()) as ApiErrorBody).message).toBe(RATE_LIMITED_MESSAGE);
    }
    // 4 × the credentials budget, counted apart: 16 ticket calls over both replicas, then 429.
    for (let i = 0; i < 16; i++) {
      await ticketOf(i % 2 ? one : two, 'budget', tokens[i % 4] ?? '');
    }
    expect((await askTicket(one, 'budget', `Bearer ${tokens[0] ?? ''}`)).status).toBe(429);
  });

  it('spends a ticket once across replicas', async () => {
    const room = 'ticket-shared';
    const ticket = await ticketOf(one, room, await redisToken(one, room, 'Ann'));
    const ann = connectWithTicket(two, room, ticket);
    await ann.next((frame) => frame.type === FrameType.Presence && frame.sender === 'Ann');
    expect((await connectWithTicket(one, room, ticket).closed).code).toBe(CloseCode.Unauthorized);
    ann.socket.close();
    await ann.closed;
  });

  it('caps open connections per IP over both replicas (1013), and frees a place on close', async () => {
    const room = 'capped';
    const token = await redisToken(one, room, 'Ann');
    const open: RawClient[] = [];
    for (const app of [one, two, one, two]) {
      const client = app.connect(room, token);
      await client.next((frame) => frame.type === FrameType.Presence && frame.sender === 'Ann');
      open.push(client);
    }
    for (const app of [one, two]) {
      const closed = await app.connect(room, token).closed;
      expect(closed.code).toBe(CloseCode.TryAgainLater);
    }
    open[0]?.socket.close();
    await open[0]?.closed;
    await until(async () => {
      const client = two.connect(room, token);
      const frame = await Promise.race([
        client.next((f) => f.type === FrameType.Presence, 1000).then(() => 'in'),
        client.closed.then(() => 'closed'),
      ]);
      if (frame === 'in') open.push(client);
      return frame === 'in';
    });
    expect(await openCount()).toBe(4);
    for (const client of open) client.socket.close();
    await Promise.all(open.map((client) => client.closed));
  });

  it('keeps a renewing replica’s connections counted, and stops once its lease is reaped', async () => {
    const connections = [
      new RedisConnections(redis.url, 'lapse-a'),
      new RedisConnections(redis.url, 'lapse-b'),
    ];
    const [leaseA, leaseB] = connections.map((c) => new ReplicaLease(c, 400)) as [
      ReplicaLease,
      ReplicaLease,
    ];
    const a = new RedisConnectionLimiter(connections[0]!, leaseA, 2);
    const b = new RedisConnectionLimiter(connections[1]!, leaseB, 2);
    const ip = '198.51.100.7';
    try {
      await Promise.all(connections.map((c) => c.waitUntilReady(5000)));
      expect(await a.acquire(ip)).toBe(true);
      expect(await a.acquire(ip)).toBe(true);
      expect(await b.acquire(ip)).toBe(false);
      // Both renew for five lease lengths: nothing is refreshed per address, and `a`'s count holds.
      for (let i = 0; i < 20; i++) {
        await Promise.all([leaseA.tend(), leaseB.tend()]);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await b.acquire(ip)).toBe(false);
      expect(await plain.smembers(SHARED_KEYS.leaseIndex('ips', leaseA.id))).toEqual([ip]);
      // `a` dies without releasing: its lease lapses, and `b`'s renewal reaps its count.
      await until(async () => (await leaseB.tend(), b.acquire(ip)), 3000, 100);
      expect(await b.acquire(ip)).toBe(true);
      expect(await b.acquire(ip)).toBe(false);
      expect(await plain.exists(SHARED_KEYS.leaseIndex('ips', leaseA.id))).toBe(0);
      b.release(ip);
      b.release(ip);
    } finally {
      await Promise.all(connections.map((c) => c.close()));
    }
  });
});

describe('Per-IP budgets while Redis is away', () => {
  it('keep limiting in each replica’s memory, and never wait for Redis', async () => {
    const [port = 0] = await freePorts(1);
    const away = new RedisConnections(`redis://127.0.0.1:${port}`, 'away');
    const limiter = new RedisIpRateLimiter(away, 'credentials', 3);
    try {
      const waits = [];
      for (let i = 0; i < 4; i++) waits.push(await limiter.take('192.0.2.1'));
      expect(waits.slice(0, 3)).toEqual([0, 0, 0]);
      expect(waits[3]).toBeGreaterThan(0);
    } finally {
      await away.close();
    }
  });
});

/**
 * Credentials for one of these tests without spending the 4-per-minute budget the first test
 * measures: a token signed by the replicas' shared secret, through `one`'s token service.
 */
async function redisToken(app: TestApp, room: string, name: string): Promise<string> {
  const { RoomTokenService } = await import('../src/rooms/room-token.service');
  return app.app.get(RoomTokenService).sign(room, name);
}
