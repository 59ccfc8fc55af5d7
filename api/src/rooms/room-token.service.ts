import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { validateUserName } from '@taco/protocol';

/** Claims of a room token (JWT, HS256). */
export interface RoomTokenClaims {
  /** The trimmed user name. */
  sub: string;
  /** The room id. */
  aud: string;
  iat: number;
  exp: number;
  /** Random: no two tokens are alike, even for one name in one room in one second. */
  jti: string;
}

/** What a valid token says: who speaks, and the credential the name is held by. */
export interface TokenHolder {
  /** The trimmed user name (`sub`). */
  name: string;
  /**
   * The credential: the token's `jti`, shared by every tab that reuses the token and by the
   * connections that follow its rename, and by no one else (a digest of the token for one made
   * before tokens carried a `jti`). While a name is present it belongs to one holder.
   */
  holder: string;
}

/** Signs and checks room tokens: HS256 only, `sub` the user name, `aud` the room id. */
@Injectable()
export class RoomTokenService {
  constructor(private readonly jwt: JwtService) {}

  /** A new holder: the `jti` of a token not signed yet (a creator's, kept with its room). */
  newHolder(): string {
    return randomBytes(9).toString('base64url');
  }

  sign(room: string, name: string, jti: string = this.newHolder()): string {
    return this.jwt.sign({}, { subject: name, audience: room, jwtid: jti });
  }

  /**
   * The user name a token carries for this room, and its holder (`TokenHolder`), or `null` when
   * it is not valid here. The JWT library checks the signature, the algorithm and the expiry; the
   * claims are checked here, so only tokens shaped as `sign` makes them pass: `aud` this one room
   * (not a list that names it too), an `exp`, and a valid user name as `sub`.
   */
  verify(token: string | null | undefined, room: string): TokenHolder | null {
    if (!token) return null;
    let claims: Partial<Record<keyof RoomTokenClaims, unknown>>;
    try {
      claims = this.jwt.verify<RoomTokenClaims>(token);
    } catch {
      return null;
    }
    const { sub, aud, exp, jti } = claims;
    if (aud !== room || typeof exp !== 'number' || typeof sub !== 'string') return null;
    if (validateUserName(sub) !== null) return null;
    const holder =
      typeof jti === 'string' && jti !== ''
        ? jti
        : createHash('sha256').update(token).digest('base64url').slice(0, 16);
    return { name: sub, holder };
  }
}
