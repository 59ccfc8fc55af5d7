import { createHmac, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { validateUserName } from '@taco/protocol';
import { AppConfig } from '../config/app-config';
import { TokenSecret } from './token-secret';

/** Claims of a room token (JWT, HS256). */
export interface RoomTokenClaims {
  /** The trimmed user name. */
  sub: string;
  /** The room id. */
  aud: string;
  iat: number;
  exp: number;
}

/** The only header a room token has: HS256, pinned. */
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
/** An HS256 signature: 32 bytes, 43 characters of base64url. */
const SIGNATURE_LENGTH = 43;

/**
 * Signs and checks room tokens: JWTs (RFC 7519) with HS256 only, `sub` the user name, `aud` the
 * room id, `iat` and `exp`. Written with `node:crypto` directly, the same tokens jsonwebtoken
 * makes and accepts (its `aud`, `exp` and `nbf` rules), without its per-call option handling:
 * a token is signed for every credential call and checked on every socket upgrade.
 */
@Injectable()
export class RoomTokenService {
  constructor(
    private readonly secret: TokenSecret,
    private readonly config: AppConfig,
  ) {}

  sign(room: string, name: string): string {
    const iat = Math.floor(Date.now() / 1000);
    const claims = { iat, exp: iat + this.config.tokenTtlSeconds, aud: room, sub: name };
    const signed = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return `${signed}.${this.signature(signed)}`;
  }

  /** The user name a token carries for this room, or `null` when it is not valid here. */
  verify(token: string | null | undefined, room: string): string | null {
    if (!token) return null;
    const payloadAt = token.indexOf('.') + 1;
    const signatureAt = token.indexOf('.', payloadAt) + 1;
    if (payloadAt === 0 || signatureAt === 0 || token.length - signatureAt !== SIGNATURE_LENGTH) {
      return null;
    }
    const expected = Buffer.from(this.signature(token.slice(0, signatureAt - 1)));
    if (!timingSafeEqual(expected, Buffer.from(token.slice(signatureAt)))) return null;
    const header = parsePart(token.slice(0, payloadAt - 1));
    const claims = parsePart(token.slice(payloadAt, signatureAt - 1));
    if (header?.alg !== 'HS256' || !claims) return null;
    const now = Math.floor(Date.now() / 1000);
    const { sub, aud, exp, nbf } = claims;
    if (exp !== undefined && (typeof exp !== 'number' || now >= exp)) return null;
    if (nbf !== undefined && (typeof nbf !== 'number' || nbf > now)) return null;
    if (!(aud === room || (Array.isArray(aud) && aud.includes(room)))) return null;
    return typeof sub === 'string' && validateUserName(sub) === null ? sub : null;
  }

  private signature(signed: string): string {
    return createHmac('sha256', this.secret.key).update(signed).digest('base64url');
  }
}

/** A base64url JSON object of a token, or `null` when it is not one. */
function parsePart(part: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
