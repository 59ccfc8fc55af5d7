import { createHmac } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';
import { AppConfig } from '../config/app-config';
import { loadConfig } from '../config/load-config';
import { RoomTokenService } from './room-token.service';
import { TokenSecret } from './token-secret';

const SECRET = 'a-secret-for-room-tokens-that-is-long-enough';

function setup(secret = SECRET, tokenTtlSeconds = 3600) {
  const config = new AppConfig({ ...loadConfig({ WEB_DIST: 'off' }), tokenTtlSeconds });
  return new RoomTokenService(TokenSecret.local(secret), config);
}

/** jsonwebtoken, as the server used it before: tokens from either must work with the other. */
const jsonwebtoken = new JwtService({
  secret: SECRET,
  signOptions: { algorithm: 'HS256' },
  verifyOptions: { algorithms: ['HS256'] },
});

const now = () => Math.floor(Date.now() / 1000);

/** A token signed with the secret, whatever its header and claims. */
function handSigned(header: object, claims: object): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signed = `${part(header)}.${part(claims)}`;
  return `${signed}.${createHmac('sha256', SECRET).update(signed).digest('base64url')}`;
}

describe('RoomTokenService', () => {
  it('signs a token for one room and name that it accepts for that room only', () => {
    const tokens = setup();
    const token = tokens.sign('teal-otter', 'Ann Lee');
    expect(tokens.verify(token, 'teal-otter')).toBe('Ann Lee');
    expect(tokens.verify(token, 'mint-yak')).toBeNull();
  });

  it('makes the same tokens as jsonwebtoken: HS256 header, sub, aud, iat and exp after the TTL', () => {
    const token = setup(SECRET, 90).sign('teal-otter', 'Ann');
    const [header = '', claims = ''] = token.split('.');
    const decode = (part: string): unknown =>
      JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    expect(decode(header)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const payload = decode(claims) as { iat: number; exp: number };
    expect(payload).toEqual({
      iat: expect.any(Number),
      exp: payload.iat + 90,
      aud: 'teal-otter',
      sub: 'Ann',
    });
    expect(jsonwebtoken.verify(token, { audience: 'teal-otter' })).toMatchObject({ sub: 'Ann' });
  });

  it('accepts tokens jsonwebtoken signed with the same secret (issued before an upgrade)', () => {
    const token = jsonwebtoken.sign({}, { subject: 'Bob', audience: 'teal-otter', expiresIn: 60 });
    expect(setup().verify(token, 'teal-otter')).toBe('Bob');
    expect(
      setup('another-secret-that-is-also-long-enough-123').verify(token, 'teal-otter'),
    ).toBeNull();
  });

  it.each([
    ['no token', null],
    ['an empty token', ''],
    ['not a JWT', 'not-a-token'],
    ['two parts', 'a.b'],
    [
      'alg none',
      `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(`{"sub":"Ann","aud":"teal-otter","exp":${now() + 60}}`).toString('base64url')}.`,
    ],
    [
      'HS512',
      new JwtService({ secret: SECRET }).sign(
        {},
        { algorithm: 'HS512', subject: 'Ann', audience: 'teal-otter', expiresIn: 60 },
      ),
    ],
    [
      'an expired token',
      jsonwebtoken.sign({ exp: now() - 1 }, { subject: 'Ann', audience: 'teal-otter' }),
    ],
    [
      'a token not valid yet',
      jsonwebtoken.sign(
        { nbf: now() + 60 },
        { subject: 'Ann', audience: 'teal-otter', expiresIn: 120 },
      ),
    ],
    [
      'a bad exp',
      handSigned({ alg: 'HS256', typ: 'JWT' }, { exp: 'never', aud: 'teal-otter', sub: 'Ann' }),
    ],
    [
      'a valid signature under another alg',
      handSigned({ alg: 'HS512', typ: 'JWT' }, { exp: now() + 60, aud: 'teal-otter', sub: 'Ann' }),
    ],
    ['no audience', jsonwebtoken.sign({}, { subject: 'Ann', expiresIn: 60 })],
    [
      'an invalid name',
      jsonwebtoken.sign({}, { subject: 'A', audience: 'teal-otter', expiresIn: 60 }),
    ],
    ['no name', jsonwebtoken.sign({}, { audience: 'teal-otter', expiresIn: 60 })],
  ])('refuses %s', (_what, token) => {
    expect(setup().verify(token, 'teal-otter')).toBeNull();
  });

  it('refuses a token whose claims were changed after signing', () => {
    const tokens = setup();
    const [header, , signature] = tokens.sign('teal-otter', 'Ann').split('.');
    const forged = Buffer.from(
      JSON.stringify({ iat: now(), exp: now() + 60, aud: 'teal-otter', sub: 'Mallory' }),
    ).toString('base64url');
    expect(tokens.verify(`${header}.${forged}.${signature}`, 'teal-otter')).toBeNull();
  });
});
