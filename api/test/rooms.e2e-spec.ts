import {
  ApiPath,
  type CreateRoomResponse,
  NAME_TAKEN_MESSAGE,
  RATE_LIMITED_MESSAGE,
  securityHeaders,
  type RoomCredentialsResponse,
} from '@taco/protocol';
import { roomSettings } from './support/room-settings';
import { startTestApp, useTestApp } from './support/test-app';

function decodeJwt(token: string): {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
} {
  const [header = '', claims = ''] = token.split('.');
  const parse = (part: string) =>
    JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
  return { header: parse(header), claims: parse(claims) };
}

describe('Rooms HTTP API', () => {
  const t = useTestApp();

  describe('POST /api/room', () => {
    it('creates a room and answers 201 with the trimmed name, the room and a token', async () => {
      const response = await t.post(ApiPath.createRoom, {
        room_id: 'teal-otter',
        sender: '  Ann Lee ',
      });
      expect(response.status).toBe(201);
      const body = (await response.json()) as CreateRoomResponse;
      expect(body).toEqual({
        name: 'Ann Lee',
        room: 'teal-otter',
        token: expect.any(String),
        creator: true,
        settings: roomSettings({ creator: 'Ann Lee' }),
      });
      const { header, claims } = decodeJwt(body.token);
      expect(header.alg).toBe('HS256');
      expect(claims.sub).toBe('Ann Lee');
      expect(claims.aud).toBe('teal-otter');
      expect(Number(claims.exp) - Number(claims.iat)).toBe(24 * 3600);
    });

    it('accepts sender_id in place of sender, and is idempotent', async () => {
      for (let i = 0; i < 2; i++) {
        const response = await t.post(ApiPath.createRoom, {
          room_id: 'mint-yak',
          sender_id: 'Bob',
        });
        expect(response.status).toBe(201);
        expect(await response.json()).toMatchObject({ name: 'Bob', room: 'mint-yak' });
      }
    });
  });

  describe('POST /api/room/:room_id', () => {
    it('answers 200 with room_id, sender_id and a token for that room', async () => {
      const response = await t.post(ApiPath.roomCredentials('lime-owl'), { sender_id: 'Cleo' });
      expect(response.status).toBe(200);
      const body = (await response.json()) as RoomCredentialsResponse;
      expect(body).toEqual({
        room_id: 'lime-owl',
        sender_id: 'Cleo',
        token: expect.any(String),
        settings: roomSettings({ creator: null }),
      });
      expect(decodeJwt(body.token).claims).toMatchObject({ sub: 'Cleo', aud: 'lime-owl' });
    });

    it('accepts sender in place of sender_id', async () => {
      const response = await t.post(ApiPath.roomCredentials('lime-owl'), { sender: 'Dora' });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ sender_id: 'Dora' });
    });

    it('handles unicode room ids in the path', async () => {
      const response = await t.post(ApiPath.roomCredentials('café-öwl'), { sender_id: 'Émile' });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ room_id: 'café-öwl', sender_id: 'Émile' });
    });
  });

  describe('name taken', () => {
    it('answers 409 while the name is connected in the room, trimmed and case-insensitively', async () => {
      const ann = await t.join('busy-room', 'Ann');
      for (const name of ['Ann', ' ann ', 'ANN']) {
        const response = await t.post(ApiPath.roomCredentials('busy-room'), { sender_id: name });
        expect(response.status).toBe(409);
        expect(await response.json()).toEqual({
          statusCode: 409,
          error: 'Conflict',
          message: NAME_TAKEN_MESSAGE,
        });
      }
      const create = await t.post(ApiPath.createRoom, { room_id: 'busy-room', sender: 'ann' });
      expect(create.status).toBe(409);
      // The same name elsewhere is free.
      expect(
        (await t.post(ApiPath.roomCredentials('other-room'), { sender_id: 'Ann' })).status,
      ).toBe(200);
      await ann.close();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(
        (await t.post(ApiPath.roomCredentials('busy-room'), { sender_id: 'Ann' })).status,
      ).toBe(200);
    });

    it('answers 409 for a look-alike of a connected name', async () => {
      const alice = await t.join('lookalike-room', 'Alice Smith');
      for (const name of [
        'Alice  Smith',
        'ａｌｉｃｅ smith',
        '\u0410lice Smith',
        'AIice Smith',
        '\u13AAlice Smith',
        '\uA4EElice Smith',
        'Alice Srnith',
      ]) {
        const response = await t.post(ApiPath.roomCredentials('lookalike-room'), {
          sender_id: name,
        });
        expect([name, response.status]).toEqual([name, 409]);
      }
      await alice.close();
    });
  });

  describe('errors and headers', () => {
    it('answers unknown /api paths with a JSON 404', async () => {
      const response = await fetch(`${t.baseUrl}/api/nowhere`);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    });

    it('forbids storing the answers that carry a token or a ticket', async () => {
      const created = await t.post(ApiPath.createRoom, { room_id: 'store-heron', sender: 'Ann' });
      expect(created.status).toBe(201);
      expect(created.headers.get('cache-control')).toBe('no-store');
      const credentials = await t.post(ApiPath.roomCredentials('store-heron'), {
        sender_id: 'Bob',
      });
      expect(credentials.status).toBe(200);
      expect(credentials.headers.get('cache-control')).toBe('no-store');
      const { token } = (await credentials.json()) as RoomCredentialsResponse;
      const ticket = await fetch(`${t.baseUrl}${ApiPath.roomTicket('store-heron')}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(ticket.status).toBe(201);
      expect(ticket.headers.get('cache-control')).toBe('no-store');
    });

    it('sends exactly the security headers of the policy nginx is rendered from', async () => {
      const response = await fetch(`${t.baseUrl}/api/health/live`);
      const policy = new Map(securityHeaders().map(([name, value]) => [name.toLowerCase(), value]));
      for (const [name, value] of policy)
        expect([name, response.headers.get(name)]).toEqual([name, value]);
      const securityLike =
        /^(content-security-policy|cross-origin-|origin-agent-cluster|permissions-policy|referrer-policy|strict-transport-security|x-)/;
      const sent = [...response.headers.keys()].filter(
        (name) => securityLike.test(name) && name !== 'x-request-id',
      );
      expect(sent.sort()).toEqual([...policy.keys()].sort());
      expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('x-powered-by')).toBeNull();
    });
  });
});

describe('Credential rate limit', () => {
  it('answers 429 with Retry-After past the per-IP limit, and forgives as time passes', async () => {
    const t = await startTestApp({ credentialsPerMinute: 3 });
    try {
      for (let i = 0; i < 3; i++) {
        expect(
          (await t.post(ApiPath.roomCredentials('teal-otter'), { sender_id: `user${i}` })).status,
        ).toBe(200);
      }
      const limited = await t.post(ApiPath.createRoom, { room_id: 'teal-otter', sender: 'Zed' });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await limited.json()).toEqual({
        statusCode: 429,
        error: 'Too Many Requests',
        message: RATE_LIMITED_MESSAGE,
      });
      // X-Forwarded-For is not trusted without TRUST_PROXY.
      const spoofed = await t.post(
        ApiPath.roomCredentials('teal-otter'),
        { sender_id: 'Zed' },
        { 'x-forwarded-for': '203.0.113.9' },
      );
      expect(spoofed.status).toBe(429);
      t.clock.advance(20_000);
      expect(
        (await t.post(ApiPath.roomCredentials('teal-otter'), { sender_id: 'Zed' })).status,
      ).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('spends none of the budget on bodies a foreign page could send without a preflight', async () => {
    const t = await startTestApp({ credentialsPerMinute: 1 });
    try {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
        const refused = await fetch(`${t.baseUrl}${ApiPath.roomCredentials('teal-otter')}`, {
          method: 'POST',
          headers: { 'content-type': type },
          body: JSON.stringify({ sender_id: 'Ann' }),
        });
        expect(refused.status).toBe(415);
      }
      expect(
        (await t.post(ApiPath.roomCredentials('teal-otter'), { sender_id: 'Ann' })).status,
      ).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('counts each forwarded client separately behind a trusted proxy', async () => {
    const t = await startTestApp({ credentialsPerMinute: 1, trustProxy: ['127.0.0.1'] });
    try {
      const from = (ip: string) =>
        t.post(
          ApiPath.roomCredentials('teal-otter'),
          { sender_id: 'Ann' },
          { 'x-forwarded-for': ip },
        );
      expect((await from('198.51.100.1')).status).toBe(200);
      expect((await from('198.51.100.1')).status).toBe(429);
      expect((await from('198.51.100.2')).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
