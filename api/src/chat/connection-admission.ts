import { type IncomingMessage } from 'node:http';
import { Injectable } from '@nestjs/common';
import { CloseCode, CloseReason, parseSocketPath } from '@taco/protocol';
import { ClientIpResolver } from '../common/client-ip';
import { AppConfig } from '../config/app-config';
import { HealthService } from '../health/health.service';
import { RoomTokenService } from '../rooms/room-token.service';
import { ConnectionLimiter } from './connection-limiter';

/** A socket let in: its room, the user name its token carries and the client's address. */
export interface Admitted {
  admitted: true;
  room: string;
  name: string;
  ip: string;
}

/** A socket refused, with the close code and reason it gets. */
export interface Refused {
  admitted: false;
  room: string | null;
  code: CloseCode;
  reason: CloseReason;
}

export type Admission = Admitted | Refused;

/**
 * Decides whether a room socket may open, in this order: the replica is not draining, the path is
 * a room socket, a browser's `Origin` is allowed, the token is valid for the room, and the
 * client's address is under its connection cap. An admitted socket holds one of its address's
 * places until `leave`.
 */
@Injectable()
export class ConnectionAdmission {
  constructor(
    private readonly config: AppConfig,
    private readonly health: HealthService,
    private readonly tokens: RoomTokenService,
    private readonly limiter: ConnectionLimiter,
    private readonly clientIp: ClientIpResolver,
  ) {}

  admit(request: IncomingMessage): Admission {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const room = parseSocketPath(url.pathname);
    const refuse = (code: CloseCode, reason: CloseReason): Refused => ({
      admitted: false,
      room,
      code,
      reason,
    });
    if (this.health.isDraining) return refuse(CloseCode.Restart, CloseReason.Restarting);
    if (room === null) return refuse(CloseCode.Policy, CloseReason.NotARoomSocket);
    if (!this.isOriginAllowed(request.headers.origin, request.headers.host)) {
      return refuse(CloseCode.Policy, CloseReason.OriginNotAllowed);
    }
    const name = this.tokens.verify(url.searchParams.get('token'), room);
    if (name === null) return refuse(CloseCode.Unauthorized, CloseReason.Unauthorized);
    const ip = this.clientIp.ofRequest(request);
    if (!this.limiter.acquire(ip)) {
      return refuse(CloseCode.TryAgainLater, CloseReason.TooManyConnections);
    }
    return { admitted: true, room, name, ip };
  }

  /** Gives back the place an admitted connection held. */
  leave(ip: string): void {
    this.limiter.release(ip);
  }

  /** Same host means the `Origin`'s host equals `Host`; no `Origin` (k6, a CLI) is allowed. */
  private isOriginAllowed(origin: string | undefined, host: string | undefined): boolean {
    if (origin === undefined) return true;
    if (this.config.allowedOrigins.length > 0) return this.config.allowedOrigins.includes(origin);
    try {
      return new URL(origin).host === host;
    } catch {
      return false;
    }
  }
}
