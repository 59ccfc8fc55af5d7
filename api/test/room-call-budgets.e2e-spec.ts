import { RATE_LIMITED_MESSAGE } from '@taco/protocol';
import { BODY_LIMIT_BYTES } from '../src/common/body-validation.pipe';
import { RedisServer } from './support/redis-server';
import {
  askTicket,
  asAnn,
  atRoom,
  bodyOf,
  bodyOfLength,
  held,
  heldAt,
  named,
  path,
  rateLimitedCount,
  refused,
  send,
  typed,
} from './support/room-calls';
import { startTestApp, type TestApp } from './support/test-app';
import { until } from './support/until';

/** The order of the calls' checks, their budgets and their logging. */

describe('The credential call’s order of checks (§2.1)', () => {
  it('reads the body, then takes the budget, then checks the room id and the name', async () => {
    const t = await startTestApp({ credentialsPerMinute: 1 });
    try {
      const statuses = [];
      for (const raw of [
        named(asAnn),
        named('{"sender_id":'),
        named(bodyOfLength(BODY_LIMIT_BYTES + 1)),
        named('Ann', typed('text/plain')),
        atRoom('ab', '[1]'),
        named({ sender_id: 'Bob' }),
      ]) {
        statuses.push((await send(t, raw)).status);
      }
      expect(statuses).toEqual([200, 400, 413, 415, 429, 429]);
    } finally {
      await t.close();
    }
  });
});

describe.each([
  ['in memory', false],
  ['in Redis', true],
])('The budgets of the calls %s', (_label, shared) => {
  let redis: RedisServer | undefined;
  let t: TestApp;

  beforeEach(async () => {
    redis = shared ? await RedisServer.start() : undefined;
    t = await startTestApp({ credentialsPerMinute: 2, redisUrl: redis?.url });
  });
  afterEach(async () => {
    await t.close();
    await redis?.dispose();
  });

  it('count valid and invalid credential calls, not unreadable bodies, and answer 429', async () => {
    const answers = [];
    for (const raw of [
      named(asAnn),
      named('{"sender_id":'),
      named({ sender_id: '!' }),
      named({ sender_id: 'Bob' }),
    ]) {
      answers.push(await send(t, raw));
    }
    expect(answers.map((answer) => answer.status)).toEqual([200, 400, 400, 429]);
    const [, , , limited] = answers;
    expect(limited?.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(limited && bodyOf(limited)).toEqual(refused(429, RATE_LIMITED_MESSAGE).body);
    expect(await rateLimitedCount(t)).toBe(1);
  });

  it('count ticket calls on the lookup budget, apart from credentials', async () => {
    // A lookup budget of 8 (4 × 2); the credential call that makes the token counts apart.
    const token = await t.token('teal-otter', 'Ann');
    const statuses = [];
    for (const call of [
      ...Array.from({ length: 6 }, () => held()),
      { body: '{"x":' },
      {},
      heldAt('ab'),
      held(),
    ]) {
      statuses.push((await askTicket(t, call, token)).status);
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201, 201, 400, 401, 400, 429]);
    expect(await rateLimitedCount(t)).toBe(1);
    // The credentials budget had one call of its two spent.
    expect((await send(t, named({ sender_id: 'Bob' }))).status).toBe(200);
  });
});

describe('The calls’ logging', () => {
  it('writes one debug line per request with its id, method, path and status, and no token', async () => {
    const lines: string[] = [];
    const t = await startTestApp(
      { logLevel: 'debug' },
      { write: (line: string) => lines.push(line) },
    );
    try {
      const answer = await send(t, named(asAnn, { headers: { 'x-request-id': 'trace-7' } }));
      const { token } = bodyOf(answer) as { token: string };
      await until(() => lines.some((line) => line.includes('trace-7')));
      const logged = lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.reqId === 'trace-7');
      expect(logged).toEqual([
        expect.objectContaining({
          level: 'debug',
          msg: 'request completed',
          req: { method: 'POST', path },
          res: { statusCode: 200 },
        }),
      ]);
      expect(lines.join('\n')).not.toContain(token);
    } finally {
      await t.close();
    }
  });
});
