import fc from 'fast-check';
import {
  API_PREFIX,
  ApiPath,
  NAME_TAKEN_MESSAGE,
  RATE_LIMITED_MESSAGE,
  WebRoute,
  parseSocketPath,
} from './http';
import { validateRoomName } from './validation';

/** Any code point, lone surrogates included (fast-check's `binary` unit is slow to set up). */
const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map((n) => String.fromCodePoint(n));

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl';

describe('ApiPath', () => {
  test('fixed paths are under /api', () => {
    expect(API_PREFIX).toBe('/api');
    expect(ApiPath.createRoom).toBe('/api/room');
    expect(ApiPath.healthLive).toBe('/api/health/live');
    expect(ApiPath.healthReady).toBe('/api/health/ready');
    expect(ApiPath.metrics).toBe('/api/metrics');
  });

  test('roomCredentials names the room', () => {
    expect(ApiPath.roomCredentials('teal-otter')).toBe('/api/room/teal-otter');
  });

  test.each([
    ['café', '/api/room/caf%C3%A9'],
    ['🌮-party', '/api/room/%F0%9F%8C%AE-party'],
    ['日本語', '/api/room/%E6%97%A5%E6%9C%AC%E8%AA%9E'],
    ['a/b', '/api/room/a%2Fb'],
    ['a?b#c', '/api/room/a%3Fb%23c'],
    ['a b', '/api/room/a%20b'],
    ['100%', '/api/room/100%25'],
  ])('roomCredentials encodes %j', (room, path) => {
    expect(ApiPath.roomCredentials(room)).toBe(path);
    expect(ApiPath.roomCredentials(room)).toBe(`/api/room/${encodeURIComponent(room)}`);
  });

  test('roomSocket names the room and carries the token', () => {
    expect(ApiPath.roomSocket('teal-otter', TOKEN)).toBe(`/api/room/teal-otter/ws?token=${TOKEN}`);
  });

  test('roomSocket encodes the room and the token', () => {
    const path = ApiPath.roomSocket('🌮/x', 'a+b/c=&d');
    expect(path).toBe('/api/room/%F0%9F%8C%AE%2Fx/ws?token=a%2Bb%2Fc%3D%26d');
    const url = new URL(path, 'http://localhost');
    expect(url.searchParams.get('token')).toBe('a+b/c=&d');
    expect(parseSocketPath(url.pathname)).toBe('🌮/x');
  });
});

describe('WebRoute', () => {
  test('has the spec routes', () => {
    expect(WebRoute.create).toBe('/');
    expect(WebRoute.account).toBe('/a');
    expect(WebRoute.room('teal-otter')).toBe('/r/teal-otter');
  });

  test('encodes the room id', () => {
    expect(WebRoute.room('café 🌮')).toBe('/r/caf%C3%A9%20%F0%9F%8C%AE');
    expect(WebRoute.room('a/b?c')).toBe('/r/a%2Fb%3Fc');
  });
});

describe('parseSocketPath', () => {
  test.each([
    ['/api/room/teal-otter/ws', 'teal-otter'],
    ['/api/room/teal-otter/ws/', 'teal-otter'],
    ['/api/room/%F0%9F%8C%AE-taco/ws', '🌮-taco'],
    ['/api/room/caf%C3%A9/ws', 'café'],
    ['/api/room/%E6%97%A5%E6%9C%AC%E8%AA%9E/ws/', '日本語'],
    ['/api/room/Teal-Otter/ws', 'Teal-Otter'],
    ['/api/room/a.b_c/ws', 'a.b_c'],
    ['/api/room/ws/ws', 'ws'],
  ])('%s → %j', (path, room) => {
    expect(parseSocketPath(path)).toBe(room);
  });

  test('an encoded slash decodes to a room id the caller must still validate', () => {
    const room = parseSocketPath('/api/room/a%2Fb/ws');
    expect(room).toBe('a/b');
    expect(validateRoomName(room)).toBe('Invalid room name');
  });

  test.each([
    '/api/room/%/ws',
    '/api/room/%E0%A4%A/ws',
    '/api/room/%ZZ/ws',
    '/api/room/abc%/ws',
    '/api/room/%C3/ws',
    '/api/room/%ED%A0%80/ws',
    '/api/room/%FF%FE/ws',
  ])('malformed percent-encoding %s gives null', (path) => {
    expect(parseSocketPath(path)).toBeNull();
  });

  test.each([
    '',
    '/',
    '/ws',
    '/api',
    '/api/room',
    '/api/room/',
    '/api/room/ws',
    '/api/room//ws',
    '/api/room/teal-otter',
    '/api/room/teal-otter/',
    '/api/room/teal-otter/ws//',
    '/api/room/teal-otter/wss',
    '/api/room/teal-otter/ws/extra',
    '/api/room/a/b/ws',
    '/api/rooms/teal-otter/ws',
    '/API/room/teal-otter/ws',
    '/api/room/teal-otter/WS',
    'api/room/teal-otter/ws',
    '//api/room/teal-otter/ws',
    '/prefix/api/room/teal-otter/ws',
    '/api/room/teal-otter/ws?token=abc',
    '/r/teal-otter',
    '/socket.io/?EIO=3&transport=websocket',
  ])('%j is not a socket path', (path) => {
    expect(parseSocketPath(path)).toBeNull();
  });

  test('a very long hostile path returns quickly', () => {
    const started = Date.now();
    expect(parseSocketPath('/api/room/' + 'a'.repeat(100_000) + '/w')).toBeNull();
    expect(parseSocketPath('/api/room/' + '%'.repeat(100_000) + '/ws')).toBeNull();
    expect(Date.now() - started).toBeLessThan(1000);
  });

  test('every valid room id survives the socket path, as the server reads it', () => {
    const roomId = fc.string({
      unit: fc.constantFrom('a', 'Z', '7', '-', '.', '_', 'é', 'ß', '日', 'ي', '🌮', '٣'),
      minLength: 3,
      maxLength: 40,
    });
    fc.assert(
      fc.property(roomId, (room) => {
        if (validateRoomName(room) !== null) return;
        const url = new URL(ApiPath.roomSocket(room, TOKEN), 'http://localhost');
        expect(parseSocketPath(url.pathname)).toBe(room);
        expect(url.searchParams.get('token')).toBe(TOKEN);
      }),
      { numRuns: 300 },
    );
  });

  test('never throws on arbitrary paths', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: anyCodePoint }),
          fc.string({ unit: anyCodePoint }).map((s) => `/api/room/${s}/ws`),
          fc
            .string({ unit: fc.constantFrom('%', 'A', 'f', '0', '9', 'E', 'D', '/') })
            .map((s) => `/api/room/${s}/ws`),
        ),
        (path) => {
          const room = parseSocketPath(path);
          if (room !== null) expect(room.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('API texts', () => {
  test('are the design texts', () => {
    expect(NAME_TAKEN_MESSAGE).toBe('That name is already taken in this room');
    expect(RATE_LIMITED_MESSAGE).toBe('Too many requests; please try again shortly');
  });
});
