import { STATUS_CODES } from 'node:http';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { rawRequest, type RawResponse } from '@taco/harness';
import {
  ApiPath,
  BODY_NOT_JSON_MESSAGE,
  BODY_NOT_JSON_TYPE_MESSAGE,
  BODY_NOT_OBJECT_MESSAGE,
  NAME_TAKEN_MESSAGE,
  RATE_LIMITED_MESSAGE,
  SERVER_ERROR_MESSAGE,
  STORAGE_UNAVAILABLE_MESSAGE,
  TICKET_UNAUTHORIZED_MESSAGE,
  ValidationMessage,
} from '@taco/protocol';
import { PresenceStore } from '../src/bus/presence.port';
import { BODY_LIMIT_BYTES } from '../src/common/body-validation.pipe';
import { RoomTokenService } from '../src/rooms/room-token.service';
import { TicketStore } from '../src/bus/ticket-store.port';
import { parsePrometheusText } from './support/prometheus-text';
import { RedisServer } from './support/redis-server';
import { startTestApp, type TestApp } from './support/test-app';
import { until } from './support/until';

/**
 * `POST /api/room/:room_id` and `POST /api/room/:room_id/ticket`, the calls every connect and
 * reconnect makes, answered ahead of Express by their only definitions (`CredentialsRoute`,
 * `TicketRoute`): every answer, header and budget of protocol/README.md §2.1–§2.4 for them.
 */

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

const bodyOf = (answer: RawResponse) => JSON.parse(answer.body.toString('utf8')) as unknown;

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;

/** An expected answer: its status and JSON body. */
interface Expected {
  status: number;
  body: unknown;
}

/** The error answer of §2.1 for `status` with `message`. */
const refused = (status: number, message: string | string[]): Expected => ({
  status,
  body: { statusCode: status, error: STATUS_CODES[status], message },
});

/** A 400 with these validation texts. */
const invalid = (...messages: string[]) => refused(400, messages);

/** Credentials issued for `name` in `room`. */
const issued = (name: string, room = 'teal-otter'): Expected => ({
  status: 200,
  body: { room_id: room, sender_id: name, token: expect.any(String) as unknown },
});

const json = (value: unknown) => JSON.stringify(value);

/** A JSON credentials body of exactly `bytes` bytes. */
const bodyOfLength = (bytes: number) => {
  const shell = json({ sender_id: 'Ann', pad: '' });
  return json({ sender_id: 'Ann', pad: 'p'.repeat(bytes - shell.length) });
};

/** `taco_http_rate_limited_total` as the app's metrics endpoint reports it. */
async function rateLimitedCount(t: TestApp): Promise<number | undefined> {
  const text = await (await fetch(`${t.baseUrl}${ApiPath.metrics}`)).text();
  return parsePrometheusText(text).get('taco_http_rate_limited_total')?.samples[0]?.value;
}

const path = ApiPath.roomCredentials('teal-otter');
const { RoomNameTooShort, RoomNameTooLong, RoomNameInvalid } = ValidationMessage;
const { UserNameTooShort, UserNameTooLong, UserNameInvalid } = ValidationMessage;
const notJsonType = refused(415, [BODY_NOT_JSON_TYPE_MESSAGE]);
const unsupported = refused(415, 'Unsupported Media Type');
const tooLarge = refused(413, 'Payload Too Large');

/** A credentials call with these JSON fields (or this raw body), and more of the request. */
const named = (fields: object | string, more: Partial<RawRequest> = {}): RawRequest => ({
  path,
  body: typeof fields === 'string' ? fields : json(fields),
  ...more,
});
const asAnn = { sender_id: 'Ann' };
const typed = (type: string | undefined) => ({ headers: { 'content-type': type } });
const coded = (coding: string) => ({ headers: { 'content-encoding': coding } });

/** A credentials call for the room id written as it goes in the path. */
const atRoom = (id: string, body = json({ sender_id: 'Kim' })): RawRequest => ({
  path: `/api/room/${id}`,
  body,
});

const credentialCalls: [string, RawRequest, Expected][] = [
  ['sender_id', named(asAnn), issued('Ann')],
  ['sender in its place', named({ sender: 'Bob' }), issued('Bob')],
  ['both, where sender_id wins', named({ sender_id: 'Cleo', sender: 'Dora' }), issued('Cleo')],
  ['a name to trim', named({ sender_id: '  Émile Zola ' }), issued('Émile Zola')],
  [
    'a unicode room id',
    { path: ApiPath.roomCredentials('café-öwl'), body: json({ sender: 'Fay' }) },
    issued('Fay', 'café-öwl'),
  ],
  ['a byte order mark', named(`\uFEFF${json(asAnn)}`), issued('Ann')],
  ['a charset', named(asAnn, typed('application/json; charset=UTF-8')), issued('Ann')],
  [
    'a UTF-16 body',
    named(asAnn, {
      ...typed('application/json; charset=utf-16le'),
      body: Buffer.from(json(asAnn), 'utf16le'),
    }),
    issued('Ann'),
  ],
  ['a +json type', named(asAnn, typed('application/vnd.api+json')), issued('Ann')],
  ['a query string', named(asAnn, { path: `${path}?x=1` }), issued('Ann')],
  ['a trailing slash', named(asAnn, { path: `${path}/` }), issued('Ann')],
  ['a chunked body', named(asAnn, { chunked: true }), issued('Ann')],
  [
    'a gzipped body',
    named(asAnn, { ...coded('gzip'), body: gzipSync(json(asAnn)) }),
    issued('Ann'),
  ],
  [
    'a brotli body',
    named(asAnn, { ...coded('br'), body: brotliCompressSync(json(asAnn)) }),
    issued('Ann'),
  ],
  ['a body of exactly the limit', named(bodyOfLength(BODY_LIMIT_BYTES)), issued('Ann')],
  ['a field named like the DTO getter', named({ ...asAnn, senderName: 'Zed' }), issued('Ann')],
  ['a bad sender beside a good sender_id', named({ ...asAnn, sender: '!' }), issued('Ann')],
  ['a name beside __proto__', named('{"__proto__":{"x":1},"sender":"Ann"}'), issued('Ann')],
  ['a short room id', atRoom('ab'), invalid(RoomNameTooShort)],
  ['a long room id', atRoom('x'.repeat(41)), invalid(RoomNameTooLong)],
  ['a room id with an encoded slash', atRoom('teal%2Fotter'), invalid(RoomNameInvalid)],
  ['a room id of punctuation only', atRoom('---'), invalid(RoomNameInvalid)],
  ['a bad percent-encoding', atRoom('teal%E0%A4%A'), invalid(RoomNameInvalid)],
  [
    'a bad room id before a bad name',
    atRoom('ab', json({ sender_id: 'x' })),
    invalid(RoomNameTooShort),
  ],
  ['a bad room id before a body that is no object', atRoom('ab', '[1]'), invalid(RoomNameTooShort)],
  ['a missing name', named({}), invalid(UserNameTooShort)],
  ['an empty body', named(''), invalid(UserNameTooShort)],
  [
    'no body at all',
    { path, headers: { 'content-type': undefined, 'content-length': undefined } },
    invalid(UserNameTooShort),
  ],
  ['a name too long', named({ sender_id: 'y'.repeat(33) }), invalid(UserNameTooLong)],
  ['a name with a bidi override', named({ sender: 'ann\u202Eevil' }), invalid(UserNameInvalid)],
  ['a name that is a number', named({ sender_id: 12345 }), invalid(UserNameInvalid)],
  [
    'a null sender_id beside a good sender',
    named({ sender_id: null, sender: 'Lou' }),
    invalid(UserNameTooShort),
  ],
  [
    'a name behind __proto__',
    named('{"__proto__":{"sender_id":"Ann"}}'),
    invalid(UserNameTooShort),
  ],
  ['a body of whitespace', named(' \n\t '), invalid(BODY_NOT_JSON_MESSAGE)],
  [
    'bytes that are not UTF-8',
    { path, body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) },
    invalid(BODY_NOT_JSON_MESSAGE),
  ],
  ['a JSON number', named('12'), invalid(BODY_NOT_OBJECT_MESSAGE)],
  [
    'JSON typed as a form (curl -d, k6)',
    named(asAnn, typed('application/x-www-form-urlencoded')),
    notJsonType,
  ],
  ['an untyped body', named(asAnn, typed(undefined)), notJsonType],
  ['a chunked text body', named('Ann', { ...typed('text/plain'), chunked: true }), notJsonType],
  ['another charset', named(asAnn, typed('application/json; charset=latin1')), unsupported],
  ['an unknown content coding', named(asAnn, coded('compress')), unsupported],
  ['a body one byte over the limit', named(bodyOfLength(BODY_LIMIT_BYTES + 1)), tooLarge],
  [
    'a chunked body over the limit',
    named({ sender_id: 'z'.repeat(5000) }, { chunked: true }),
    tooLarge,
  ],
  [
    'a gzipped body over the limit once inflated',
    named(asAnn, { ...coded('gzip'), body: gzipSync(json({ sender_id: 'z'.repeat(10_000) })) }),
    tooLarge,
  ],
  [
    'two trailing slashes',
    named(asAnn, { path: `${path}//` }),
    refused(404, 'Cannot POST /api/room/teal-otter//'),
  ],
];

const ticketPath = ApiPath.roomTicket('teal-otter');

/** A ticket call: `authorization` makes the header from a valid token of the app's. */
interface TicketCall extends Partial<RawRequest> {
  authorization?: (token: string) => string;
}

async function askTicket(t: TestApp, call: TicketCall, token?: string) {
  const own = token ?? (await t.token('teal-otter', 'Ann'));
  const { authorization, path: callPath = ticketPath, headers = {}, body, chunked } = call;
  const auth = authorization === undefined ? {} : { authorization: authorization(own) };
  // No body and no Content-Length unless the call has one, as a browser's fetch sends it.
  const none = body === undefined && !chunked;
  return send(t, {
    path: callPath,
    body,
    chunked,
    headers: {
      ...(none ? { 'content-type': undefined, 'content-length': undefined } : {}),
      ...auth,
      ...headers,
    },
  });
}

const bearer = (token: string) => `Bearer ${token}`;
const ticket: Expected = {
  status: 201,
  body: { ticket: expect.stringMatching(/^[\w-]{32}$/) as unknown },
};
const unauthorized = refused(401, TICKET_UNAUTHORIZED_MESSAGE);

/** A ticket call with a valid token, and more of the request. */
const held = (more: TicketCall = {}): TicketCall => ({ authorization: bearer, ...more });
/** A ticket call with a valid token to the room id written as it goes in the path. */
const heldAt = (id: string) => held({ path: `/api/room/${id}/ticket` });

const ticketCalls: [string, TicketCall, Expected][] = [
  ['a valid Bearer token and no body', held(), ticket],
  ['a lower-case scheme', { authorization: (token) => `bearer ${token}` }, ticket],
  ['an empty JSON body', held({ body: '' }), ticket],
  ['a JSON object body, ignored', held({ body: '{"x":1}' }), ticket],
  ['a JSON array body, ignored', held({ body: '[1]' }), ticket],
  ['a chunked body', held({ body: '{}', chunked: true }), ticket],
  ['a gzipped body', held({ body: gzipSync('{}'), ...coded('gzip') }), ticket],
  ['a query string', held({ path: `${ticketPath}?x=1` }), ticket],
  ['a trailing slash', held({ path: `${ticketPath}/` }), ticket],
  ['no Authorization header', {}, unauthorized],
  ['a token that is not a JWT', { authorization: () => 'Bearer not-a-jwt' }, unauthorized],
  ['another scheme', { authorization: (token) => `Basic ${token}` }, unauthorized],
  ['a token of another room', heldAt('blue-heron'), unauthorized],
  ['a short room id', heldAt('ab'), invalid(RoomNameTooShort)],
  ['a room id with a space', heldAt('a%20b%20c'), invalid(RoomNameInvalid)],
  ['a bad percent-encoding', heldAt('teal%E0%A4%A'), invalid(RoomNameInvalid)],
  ['malformed JSON', held({ body: '{"x":' }), invalid(BODY_NOT_JSON_MESSAGE)],
  ['a JSON string body', held({ body: '"x"' }), invalid(BODY_NOT_OBJECT_MESSAGE)],
  ['an untyped body that is not JSON', held({ body: 'x', ...typed(undefined) }), notJsonType],
  ['an XML body', held({ body: '<x/>', ...typed('application/xml') }), notJsonType],
  ['a body over the limit', held({ body: json({ x: 'z'.repeat(5000) }) }), tooLarge],
];

describe('The credential and ticket calls', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  it.each(credentialCalls)('answer credentials with %s', async (_label, raw, expected) => {
    const answer = await send(t, raw);
    expect({ status: answer.status, body: bodyOf(answer) }).toEqual(expected);
    expect(answer.headers['cache-control']).toBe('no-store');
  });

  it.each(ticketCalls)('answer a ticket call with %s', async (_label, call, expected) => {
    const answer = await askTicket(t, call);
    expect({ status: answer.status, body: bodyOf(answer) }).toEqual(expected);
    expect(answer.headers['cache-control']).toBe('no-store');
  });

  it('issue a token for the room and the trimmed name', async () => {
    const answer = await send(t, named({ sender_id: ' Ann Lee ' }));
    const { token } = bodyOf(answer) as { token: string };
    expect(claimsOf(token)).toMatchObject({ sub: 'Ann Lee', aud: 'teal-otter' });
    expect(t.app.get(RoomTokenService).verify(token, 'teal-otter')).not.toBeNull();
  });

  it('carry the headers of every API answer, as Express writes them, ETag included', async () => {
    // The same error body from a route Express answers (`POST /api/room`) and from each call.
    const fromExpress = await send(t, { path: ApiPath.createRoom, body: '"x"' });
    const fromCredentials = await send(t, named('"x"'));
    const fromTicket = await askTicket(t, { body: '"x"' });
    const comparable = ({ status, headers, body }: RawResponse) => {
      const { date: _date, 'x-request-id': id, connection: _c, ...rest } = headers;
      return { status, body: body.toString('utf8'), id: typeof id, headers: rest };
    };
    expect(comparable(fromCredentials)).toEqual(comparable(fromExpress));
    expect(comparable(fromTicket)).toEqual(comparable(fromExpress));
    expect(fromExpress.headers.etag).toMatch(/^W\/"/);
    const answer = await send(t, named(asAnn));
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
    expect(answer.headers.etag).toMatch(/^W\/"/);
    expect(answer.headers['x-powered-by']).toBeUndefined();
  });

  it('answer a POST in full, never 304, even when If-None-Match names its ETag', async () => {
    const first = await send(t, atRoom('ab'));
    const etag = first.headers.etag ?? '';
    const again = await send(t, { ...atRoom('ab'), headers: { 'if-none-match': etag } });
    expect([again.status, again.headers.etag, again.body]).toEqual([400, etag, first.body]);
  });

  it('keep a sane request id, and replace any other', async () => {
    const kept = await send(t, named(asAnn, { headers: { 'x-request-id': 'lb-42.a' } }));
    expect(kept.headers['x-request-id']).toBe('lb-42.a');
    const replaced = await askTicket(t, held({ headers: { 'x-request-id': 'no spaces allowed' } }));
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answer 409 for a name connected in the room', async () => {
    await t.join('busy-room', 'Nia');
    const answer = await send(t, atRoom('busy-room', json({ sender: ' NIA ' })));
    expect({ status: answer.status, body: bodyOf(answer) }).toEqual(
      refused(409, NAME_TAKEN_MESSAGE),
    );
  });

  it('answer 503 when presence cannot be read', async () => {
    jest
      .spyOn(t.app.get(PresenceStore), 'isTaken')
      .mockRejectedValueOnce(new Error('storage away'));
    const answer = await send(t, named(asAnn));
    expect({ status: answer.status, body: bodyOf(answer) }).toEqual(
      refused(503, STORAGE_UNAVAILABLE_MESSAGE),
    );
  });

  it('answer 500 without detail when something unexpected fails', async () => {
    jest.spyOn(t.app.get(RoomTokenService), 'sign').mockImplementationOnce(() => {
      throw new Error('signing failed');
    });
    jest.spyOn(t.app.get(TicketStore), 'issue').mockRejectedValueOnce(new Error('storage away'));
    for (const answer of [await send(t, named(asAnn)), await askTicket(t, held())]) {
      expect({ status: answer.status, body: bodyOf(answer) }).toEqual(
        refused(500, SERVER_ERROR_MESSAGE),
      );
    }
  });

  it('issue a new single-use ticket on every call, for the token’s name and holder', async () => {
    const token = await t.token('teal-otter', 'Ann');
    const first = await askTicket(t, held(), token);
    const second = await askTicket(t, held(), token);
    const { ticket: issuedTicket } = bodyOf(first) as { ticket: string };
    expect(bodyOf(second)).not.toEqual({ ticket: issuedTicket });
    expect(await t.app.get(TicketStore).redeem(issuedTicket)).toEqual({
      room: 'teal-otter',
      name: 'Ann',
      holder: claimsOf(token).jti,
    });
  });
});

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
