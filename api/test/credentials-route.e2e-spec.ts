import { gzipSync } from 'node:zlib';
import { rawRequest, type RawResponse } from '@taco/harness';
import { ApiPath, STORAGE_UNAVAILABLE_MESSAGE, ValidationMessage } from '@taco/protocol';
import { PresenceStore } from '../src/bus/presence.port';
import { TicketStore } from '../src/bus/ticket-store.port';
import { LookupThrottleGuard } from '../src/rooms/ip-throttle.guard';
import { RoomsService } from '../src/rooms/rooms.service';
import { parsePrometheusText } from './support/prometheus-text';
import { RedisServer } from './support/redis-server';
import { startTestApp, type TestApp } from './support/test-app';
import { until } from './support/until';

interface RawRequest {
  path: string;
  body?: string | Buffer;
  /** Headers beside the defaults; `undefined` leaves a default header out. */
  headers?: Record<string, string | undefined>;
  /** Sent with `Transfer-Encoding: chunked` instead of a `Content-Length`. */
  chunked?: boolean;
}

/** A POST exactly as given: the test decides every header, the length and the body's bytes. */
function send(t: TestApp, { path, body = '', headers = {}, chunked = false }: RawRequest) {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return rawRequest(`${t.baseUrl}${path}`, {
    method: 'POST',
    headers: Object.fromEntries(
      Object.entries({
        'content-type': 'application/json',
        ...(chunked ? {} : { 'content-length': String(bytes.length) }),
        ...headers,
      }).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
    body: bytes,
  });
}

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;

/**
 * What a client can tell from an answer: status, body and headers, with what differs between two
 * calls by design (the date, a generated request id, a token's issue time and what hashes it)
 * reduced to its form.
 */
function observable({ status, headers, body: bytes }: RawResponse) {
  const body = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  const seen: Record<string, unknown> = { ...headers };
  delete seen.date;
  if (typeof body.token === 'string') {
    const { sub, aud, exp, iat } = claimsOf(body.token);
    body.token = { sub, aud, ttl: Number(exp) - Number(iat) };
    seen.etag = typeof headers.etag;
    seen['content-length'] = typeof headers['content-length'];
  }
  if (typeof body.ticket === 'string') {
    body.ticket = /^[A-Za-z0-9_-]{32}$/.test(body.ticket) ? 'a ticket' : body.ticket;
    seen.etag = typeof headers.etag;
  }
  const id = headers['x-request-id'];
  if (typeof id === 'string' && /^[0-9a-f-]{36}$/.test(id)) seen['x-request-id'] = 'generated';
  return { status, body, headers: seen };
}

const json = (value: unknown) => JSON.stringify(value);

/** `taco_http_rate_limited_total` as the app's metrics endpoint reports it. */
async function rateLimitedCount(t: TestApp): Promise<number | undefined> {
  const text = await (await fetch(`${t.baseUrl}${ApiPath.metrics}`)).text();
  return parsePrometheusText(text).get('taco_http_rate_limited_total')?.samples[0]?.value;
}
const path = ApiPath.roomCredentials('teal-otter');

/** Requests the plain route answers itself, each with a different answer or reason. */
const answeredPlainly: [string, RawRequest][] = [
  ['sender_id', { path, body: json({ sender_id: 'Ann' }) }],
  ['sender in its place', { path, body: json({ sender: 'Bob' }) }],
  ['both, where sender_id wins', { path, body: json({ sender_id: 'Cleo', sender: 'Dora' }) }],
  ['a name to trim', { path, body: json({ sender_id: '  Émile Zola ' }) }],
  [
    'a unicode room id',
    { path: ApiPath.roomCredentials('café-öwl'), body: json({ sender: 'Fay' }) },
  ],
  ['a byte order mark', { path, body: `\uFEFF${json({ sender_id: 'Gus' })}` }],
  [
    'a charset',
    {
      path,
      body: json({ sender_id: 'Hal' }),
      headers: { 'content-type': 'application/json; charset=UTF-8' },
    },
  ],
  [
    'a request id to keep',
    { path, body: json({ sender_id: 'Ida' }), headers: { 'x-request-id': 'lb-42.a' } },
  ],
  [
    'a request id to replace',
    { path, body: json({ sender_id: 'Jan' }), headers: { 'x-request-id': 'no spaces allowed' } },
  ],
  ['a short room id', { path: '/api/room/ab', body: json({ sender_id: 'Kim' }) }],
  [
    'a long room id',
    { path: ApiPath.roomCredentials('x'.repeat(41)), body: json({ sender_id: 'Kim' }) },
  ],
  ['a room id with a space', { path: '/api/room/a%20b%20c', body: json({ sender_id: 'Kim' }) }],
  [
    'a room id with an encoded slash',
    { path: '/api/room/teal%2Fotter', body: json({ sender_id: 'Kim' }) },
  ],
  [
    'a room id with a zero-width space',
    { path: ApiPath.roomCredentials('teal\u200Botter'), body: json({ sender_id: 'Kim' }) },
  ],
  ['a room id of punctuation only', { path: '/api/room/---', body: json({ sender_id: 'Kim' }) }],
  ['a bad room id and a bad name', { path: '/api/room/ab', body: json({ sender_id: 'x' }) }],
  ['a missing name', { path, body: json({}) }],
  ['a name too short after trimming', { path, body: json({ sender_id: '  ab  ' }) }],
  ['a name too long', { path, body: json({ sender_id: 'y'.repeat(33) }) }],
  ['a name with @', { path, body: json({ sender_id: 'ann@home' }) }],
  ['a name with a bidi override', { path, body: json({ sender: 'ann\u202Eevil' }) }],
  ['a name that is a number', { path, body: json({ sender_id: 12345 }) }],
  ['a name that is an object', { path, body: json({ sender: { name: 'Ann' } }) }],
  [
    'a null sender_id beside a good sender',
    { path, body: json({ sender_id: null, sender: 'Lou' }) },
  ],
  ['a bad sender beside a good sender_id', { path, body: json({ sender_id: 'Max', sender: '!' }) }],
  ['a name behind __proto__', { path, body: '{"__proto__":{"sender_id":"Ann"}}' }],
  ['a name beside __proto__', { path, body: '{"__proto__":{"x":1},"sender":"Ann"}' }],
  [
    'a field named like the DTO getter',
    { path, body: json({ sender_id: 'Ann', senderName: 'Zed' }) },
  ],
  ['an empty body', { path, body: '' }],
  ['a body of whitespace', { path, body: ' \n\t ' }],
  ['a JSON array', { path, body: '[1,2]' }],
  ['a JSON string', { path, body: '"Ann"' }],
  ['a JSON number', { path, body: '12' }],
  ['null', { path, body: 'null' }],
  ['malformed JSON', { path, body: '{"sender_id":' }],
  ['bytes that are not UTF-8', { path, body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) }],
  [
    'a text body',
    { path, body: json({ sender_id: 'Ann' }), headers: { 'content-type': 'text/plain' } },
  ],
  [
    'JSON typed as a form (curl -d, k6)',
    {
      path,
      body: json({ sender_id: 'Ann' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    },
  ],
  [
    'a form body',
    {
      path,
      body: 'sender_id=Ann',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    },
  ],
  [
    'a +json type',
    {
      path,
      body: json({ sender_id: 'Ann' }),
      headers: { 'content-type': 'application/vnd.api+json' },
    },
  ],
  [
    'an untyped body',
    { path, body: json({ sender_id: 'Ann' }), headers: { 'content-type': undefined } },
  ],
];

/** Requests left to Nest's route; the two apps must still agree on them. */
const leftToNest: [string, RawRequest][] = [
  ['a query string', { path: `${path}?x=1`, body: json({ sender_id: 'Ann' }) }],
  ['a trailing slash', { path: `${path}/`, body: json({ sender_id: 'Ann' }) }],
  ['a chunked body', { path, body: json({ sender_id: 'Ann' }), chunked: true }],
  [
    'a gzipped body',
    { path, body: gzipSync(json({ sender_id: 'Ann' })), headers: { 'content-encoding': 'gzip' } },
  ],
  [
    'another charset',
    {
      path,
      body: json({ sender_id: 'Ann' }),
      headers: { 'content-type': 'application/json; charset=latin1' },
    },
  ],
  [
    'an XML body',
    { path, body: '<sender_id>Ann</sender_id>', headers: { 'content-type': 'application/xml' } },
  ],
  ['a body over the limit', { path, body: json({ sender_id: 'z'.repeat(5000) }) }],
  ['a bad percent-encoding', { path: '/api/room/teal%E0%A4%A', body: json({ sender_id: 'Ann' }) }],
];

describe('POST /api/room/:room_id answered ahead of Express', () => {
  let plain: TestApp;
  let nest: TestApp;

  beforeAll(async () => {
    plain = await startTestApp();
    nest = await startTestApp({}, undefined, { plainCredentialsRoute: false });
  });
  afterAll(async () => {
    await plain.close();
    await nest.close();
  });
  afterEach(() => jest.restoreAllMocks());

  it.each(answeredPlainly)('answers %s as the Nest route does, by itself', async (_label, raw) => {
    const issue = jest.spyOn(plain.app.get(RoomsService), 'issue');
    const mine = await send(plain, raw);
    const theirs = await send(nest, raw);
    expect(observable(mine)).toEqual(observable(theirs));
    expect(issue).not.toHaveBeenCalled();
  });

  it.each(leftToNest)('leaves %s to the Nest route', async (_label, raw) => {
    expect(observable(await send(plain, raw))).toEqual(observable(await send(nest, raw)));
  });

  it('answers valid credentials with the trimmed name and a token for the room', async () => {
    const answer = await send(plain, { path, body: json({ sender_id: ' Ann Lee ' }) });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = JSON.parse(answer.body.toString('utf8')) as {
      room_id: string;
      sender_id: string;
      token: string;
    };
    expect(body).toEqual({
      room_id: 'teal-otter',
      sender_id: 'Ann Lee',
      token: expect.any(String),
    });
    expect(claimsOf(body.token)).toMatchObject({ sub: 'Ann Lee', aud: 'teal-otter' });
    const bad = await send(plain, { path: '/api/room/ab', body: json({ sender_id: 'x' }) });
    expect(JSON.parse(bad.body.toString('utf8'))).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: [ValidationMessage.RoomNameTooShort],
    });
  });

  it('answers 409 for a name connected in the room, as the Nest route does', async () => {
    await plain.join('busy-room', 'Nia');
    await nest.join('busy-room', 'Nia');
    const raw = { path: ApiPath.roomCredentials('busy-room'), body: json({ sender: ' NIA ' }) };
    const mine = await send(plain, raw);
    expect(mine.status).toBe(409);
    expect(observable(mine)).toEqual(observable(await send(nest, raw)));
  });

  it('answers 503 when presence cannot be read, as the Nest route does', async () => {
    for (const t of [plain, nest]) {
      jest
        .spyOn(t.app.get(PresenceStore), 'isTaken')
        .mockRejectedValueOnce(new Error('storage away'));
    }
    const raw = { path, body: json({ sender_id: 'Otto' }) };
    const mine = await send(plain, raw);
    expect(mine.status).toBe(503);
    expect(JSON.parse(mine.body.toString('utf8'))).toMatchObject({
      message: STORAGE_UNAVAILABLE_MESSAGE,
    });
    expect(observable(mine)).toEqual(observable(await send(nest, raw)));
  });

  it('answers 500 without detail when something unexpected fails, as the Nest route does', async () => {
    for (const t of [plain, nest]) {
      jest.spyOn(t.app.get(RoomsService), 'credentials').mockImplementationOnce(() => {
        throw new Error('signing failed');
      });
    }
    const raw = { path, body: json({ sender_id: 'Pia' }) };
    const mine = await send(plain, raw);
    expect(mine.status).toBe(500);
    expect(mine.body.toString('utf8')).not.toContain('signing failed');
    expect(observable(mine)).toEqual(observable(await send(nest, raw)));
  });
});

describe.each([
  ['in memory', false],
  ['in Redis', true],
])('The plain route spends the same per-IP budget %s', (_label, shared) => {
  it('counts valid and invalid calls, not unreadable bodies, and answers 429 as Nest does', async () => {
    const redis = shared ? await Promise.all([RedisServer.start(), RedisServer.start()]) : [];
    const apps = await Promise.all([
      startTestApp({ credentialsPerMinute: 2, redisUrl: redis[0]?.url }),
      startTestApp({ credentialsPerMinute: 2, redisUrl: redis[1]?.url }, undefined, {
        plainCredentialsRoute: false,
      }),
    ]);
    try {
      const answers = [];
      for (const t of apps) {
        const seen = [];
        for (const raw of [
          { path, body: json({ sender_id: 'Ann' }) },
          { path, body: '{"sender_id":' },
          { path, body: json({ sender_id: '!' }) },
          { path, body: json({ sender_id: 'Bob' }) },
        ]) {
          seen.push(observable(await send(t, raw)));
        }
        answers.push(seen);
      }
      const [mine = [], theirs] = answers;
      expect(mine.map((answer) => answer.status)).toEqual([200, 400, 400, 429]);
      expect(mine[3]?.headers['retry-after']).toMatch(/^\d+$/);
      expect(mine).toEqual(theirs);
      for (const t of apps) expect(await rateLimitedCount(t)).toBe(1);
    } finally {
      await Promise.all(apps.map((t) => t.close()));
      await Promise.all(redis.map((server) => server.dispose()));
    }
  });
});

describe('The plain route logs as Express does', () => {
  it('writes one debug line per request with its id, method, path and status, and no token', async () => {
    const lines: string[] = [];
    const t = await startTestApp(
      { logLevel: 'debug' },
      { write: (line: string) => lines.push(line) },
    );
    try {
      const answer = await send(t, {
        path,
        body: json({ sender_id: 'Quinn' }),
        headers: { 'x-request-id': 'trace-7' },
      });
      const { token } = JSON.parse(answer.body.toString('utf8')) as { token: string };
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

const ticketPath = ApiPath.roomTicket('teal-otter');

/**
 * A ticket call exactly as given (`token` stands for a token of the app's own, made by each app
 * for its own secret), with `body` sent under the given headers only.
 */
interface TicketCall {
  path?: string;
  authorization?: (token: string) => string;
  body?: string;
  headers?: Record<string, string>;
  chunked?: boolean;
}

async function askTicket(t: TestApp, call: TicketCall, token?: string) {
  const own = token ?? (await t.token('teal-otter', 'Ann'));
  const headers: Record<string, string> = {};
  if (call.body !== undefined && !call.chunked) {
    headers['content-length'] = String(Buffer.byteLength(call.body));
  }
  if (call.authorization) headers.authorization = call.authorization(own);
  return rawRequest(`${t.baseUrl}${call.path ?? ticketPath}`, {
    method: 'POST',
    headers: { ...headers, ...call.headers },
    body: call.body === undefined ? undefined : Buffer.from(call.body, 'utf8'),
  });
}

const bearer = (token: string) => `Bearer ${token}`;

/** Ticket calls the plain route answers itself, each with a different answer or reason. */
const ticketsAnsweredPlainly: [string, TicketCall][] = [
  ['a valid Bearer token and no body', { authorization: bearer }],
  ['a valid token and an empty body', { authorization: bearer, body: '' }],
  ['a lower-case scheme', { authorization: (token) => `bearer ${token}` }],
  [
    'a JSON object body',
    { authorization: bearer, body: '{"x":1}', headers: { 'content-type': 'application/json' } },
  ],
  [
    'a JSON array body',
    { authorization: bearer, body: '[1]', headers: { 'content-type': 'application/json' } },
  ],
  ['an untyped body that is not JSON', { authorization: bearer, body: 'not json' }],
  [
    'a text body',
    { authorization: bearer, body: 'hello', headers: { 'content-type': 'text/plain' } },
  ],
  ['a request id to keep', { authorization: bearer, headers: { 'x-request-id': 'lb-43.b' } }],
  ['no Authorization header', {}],
  ['a token that is not a JWT', { authorization: () => 'Bearer not-a-jwt' }],
  ['another scheme', { authorization: (token) => `Basic ${token}` }],
  ['a token of another room', { authorization: bearer, path: ApiPath.roomTicket('blue-heron') }],
  ['a short room id', { authorization: bearer, path: '/api/room/ab/ticket' }],
  ['a room id with a space', { authorization: bearer, path: '/api/room/a%20b%20c/ticket' }],
  [
    'malformed JSON',
    { authorization: bearer, body: '{"x":', headers: { 'content-type': 'application/json' } },
  ],
  [
    'a JSON string body',
    { authorization: bearer, body: '"x"', headers: { 'content-type': 'application/json' } },
  ],
];

/** Ticket calls left to Nest's route; the two apps must still agree on them. */
const ticketsLeftToNest: [string, TicketCall][] = [
  ['a query string', { authorization: bearer, path: `${ticketPath}?x=1` }],
  ['a trailing slash', { authorization: bearer, path: `${ticketPath}/` }],
  [
    'a chunked body',
    {
      authorization: bearer,
      body: '{}',
      chunked: true,
      headers: { 'content-type': 'application/json' },
    },
  ],
  [
    'an XML body',
    { authorization: bearer, body: '<x/>', headers: { 'content-type': 'application/xml' } },
  ],
  [
    'a body over the limit',
    {
      authorization: bearer,
      body: json({ x: 'z'.repeat(5000) }),
      headers: { 'content-type': 'application/json' },
    },
  ],
  ['a bad percent-encoding', { authorization: bearer, path: '/api/room/teal%E0%A4%A/ticket' }],
];

describe('POST /api/room/:room_id/ticket answered ahead of Express', () => {
  let plain: TestApp;
  let nest: TestApp;

  beforeAll(async () => {
    plain = await startTestApp();
    nest = await startTestApp({}, undefined, { plainTicketRoute: false });
  });
  afterAll(async () => {
    await plain.close();
    await nest.close();
  });
  afterEach(() => jest.restoreAllMocks());

  it.each(ticketsAnsweredPlainly)(
    'answers %s as the Nest route does, by itself',
    async (_label, call) => {
      // Nest's route runs its guard first; the plain route takes from the budget itself.
      const guard = jest.spyOn(plain.app.get(LookupThrottleGuard), 'canActivate');
      const mine = await askTicket(plain, call);
      expect(guard).not.toHaveBeenCalled();
      const theirs = await askTicket(nest, call);
      expect(observable(mine)).toEqual(observable(theirs));
    },
  );

  it.each(ticketsLeftToNest)('leaves %s to the Nest route', async (_label, call) => {
    expect(observable(await askTicket(plain, call))).toEqual(
      observable(await askTicket(nest, call)),
    );
  });

  it('answers 201 with a new single-use ticket that opens a socket as the token’s user', async () => {
    const token = await plain.token('teal-otter', 'Ann');
    const first = await askTicket(plain, { authorization: bearer }, token);
    const second = await askTicket(plain, { authorization: bearer }, token);
    expect([first.status, second.status]).toEqual([201, 201]);
    const { ticket } = JSON.parse(first.body.toString('utf8')) as { ticket: string };
    expect(JSON.parse(second.body.toString('utf8'))).not.toEqual({ ticket });
    // The ticket stands for the token's name and its holder (the token's jti).
    expect(await plain.app.get(TicketStore).redeem(ticket)).toEqual({
      room: 'teal-otter',
      name: 'Ann',
      holder: claimsOf(token).jti,
    });
  });

  it('answers 500 without detail when the ticket cannot be stored, as the Nest route does', async () => {
    for (const t of [plain, nest]) {
      jest.spyOn(t.app.get(TicketStore), 'issue').mockRejectedValueOnce(new Error('storage away'));
    }
    const mine = await askTicket(plain, { authorization: bearer });
    expect(mine.status).toBe(500);
    expect(mine.body.toString('utf8')).not.toContain('storage away');
    expect(observable(mine)).toEqual(observable(await askTicket(nest, { authorization: bearer })));
  });
});

describe.each([
  ['in memory', false],
  ['in Redis', true],
])(
  'The plain ticket route spends the lookup budget %s, apart from credentials',
  (_label, shared) => {
    it('counts answered and refused calls, not unreadable bodies, and answers 429 as Nest does', async () => {
      const redis = shared ? await Promise.all([RedisServer.start(), RedisServer.start()]) : [];
      // A lookup budget of 4 (4 × 1); the credential calls that make the tokens count apart.
      const apps = await Promise.all([
        startTestApp({ credentialsPerMinute: 1, redisUrl: redis[0]?.url }),
        startTestApp({ credentialsPerMinute: 1, redisUrl: redis[1]?.url }, undefined, {
          plainTicketRoute: false,
        }),
      ]);
      try {
        const answers = [];
        for (const t of apps) {
          const token = await t.token('teal-otter', 'Ann');
          const seen = [];
          for (const call of [
            { authorization: () => bearer(token) },
            { authorization: () => bearer(token) },
            { body: '{"x":', headers: { 'content-type': 'application/json' } },
            {},
            { authorization: () => bearer(token), path: '/api/room/ab/ticket' },
            { authorization: () => bearer(token) },
          ]) {
            const answer = await askTicket(t, call, token);
            seen.push(observable(answer));
          }
          answers.push(seen);
        }
        const [mine = [], theirs] = answers;
        expect(mine.map((answer) => answer.status)).toEqual([201, 201, 400, 401, 400, 429]);
        expect(mine[5]?.headers['retry-after']).toMatch(/^\d+$/);
        expect(mine).toEqual(theirs);
        for (const t of apps) expect(await rateLimitedCount(t)).toBe(1);
      } finally {
        await Promise.all(apps.map((t) => t.close()));
        await Promise.all(redis.map((server) => server.dispose()));
      }
    });
  },
);
