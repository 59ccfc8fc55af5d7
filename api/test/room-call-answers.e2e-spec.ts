import { gzipSync, brotliCompressSync } from 'node:zlib';
import { type RawResponse } from '@taco/harness';
import {
  ApiPath,
  BODY_NOT_JSON_MESSAGE,
  BODY_NOT_JSON_TYPE_MESSAGE,
  BODY_NOT_OBJECT_MESSAGE,
  NAME_TAKEN_MESSAGE,
  SERVER_ERROR_MESSAGE,
  STORAGE_UNAVAILABLE_MESSAGE,
  TICKET_UNAUTHORIZED_MESSAGE,
  ValidationMessage,
} from '@taco/protocol';
import { RoomSettingsStore } from '../src/bus/room-settings.port';
import { BODY_LIMIT_BYTES } from '../src/common/body-validation.pipe';
import { RoomTokenService } from '../src/rooms/room-token.service';
import { TicketStore } from '../src/bus/ticket-store.port';
import {
  askTicket,
  asAnn,
  atRoom,
  bodyOf,
  bodyOfLength,
  claimsOf,
  coded,
  type Expected,
  held,
  heldAt,
  invalid,
  json,
  named,
  path,
  type RawRequest,
  refused,
  send,
  type TicketCall,
  ticketPath,
  typed,
} from './support/room-calls';
import { roomSettings } from './support/room-settings';
import { startTestApp, type TestApp } from './support/test-app';

/** Every answer and header of the calls (the helpers' file says which calls). */

/** Credentials issued for `name` in `room`. */
const issued = (name: string, room = 'teal-otter'): Expected => ({
  status: 200,
  body: {
    room_id: room,
    sender_id: name,
    token: expect.any(String) as unknown,
    // A room no create call made: default settings, no creator (protocol/README.md §6.9).
    settings: roomSettings({ creator: null }),
  },
});

const { RoomNameTooShort, RoomNameTooLong, RoomNameInvalid } = ValidationMessage;
const { UserNameTooShort, UserNameTooLong, UserNameInvalid } = ValidationMessage;
const notJsonType = refused(415, [BODY_NOT_JSON_TYPE_MESSAGE]);
const unsupported = refused(415, 'Unsupported Media Type');
const tooLarge = refused(413, 'Payload Too Large');

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

const ticket: Expected = {
  status: 201,
  body: { ticket: expect.stringMatching(/^[\w-]{32}$/) as unknown },
};
const unauthorized = refused(401, TICKET_UNAUTHORIZED_MESSAGE);

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

  it('answer 503 when the room and who is present cannot be read', async () => {
    jest
      .spyOn(t.app.get(RoomSettingsStore), 'checkCredentials')
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
