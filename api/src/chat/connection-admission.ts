import { type IncomingMessage } from 'node:http';
import { Injectable } from '@nestjs/common';
import { CloseCode, CloseReason, parseSocketPath } from '@taco/protocol';
import { ClientIpResolver } from '../common/client-ip';
import { AppConfig } from '../config/app-config';
import { HealthService } from '../health/health.service';
import { RoomTokenService, type TokenHolder } from '../rooms/room-token.service';
import { type TicketClaims, TicketStore } from '../bus/ticket-store.port';
import { ConnectionLimiter } from '../bus/connection-limiter.port';

/**
 * A socket let in: its room, the user name its token carries and who holds it (`TokenHolder`),
 * and the client's address.
 */
export interface Admitted extends TokenHolder {
  admitted: true;
  room: string;
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
 * a room socket, a browser's `Origin` is allowed, the token (or single-use ticket) is valid for the
 * room, and the client's address is under its connection cap. The decision is made before the
 * upgrade (`prepare`, which may ask Redis) and handed to the gateway with the socket (`take`).
 * An admitted socket holds one of its address's places until `leave`.
 */
@Injectable()
export class ConnectionAdmission {
  /**
   * Decisions made for upgrades under way, until the gateway takes them, each with the listener
   * that gives an admitted socket's place back if its TCP connection closes first.
   */
  private readonly prepared = new WeakMap<
    IncomingMessage,
    { admission: Admission; onClose?: () => void }
  >();

  constructor(
    private readonly config: AppConfig,
    private readonly health: HealthService,
    private readonly tokens: RoomTokenService,
    private readonly tickets: TicketStore,
    private readonly limiter: ConnectionLimiter,
    private readonly clientIp: ClientIpResolver,
  ) {}

  /**
   * Decides for `request` and keeps the decision for `take`. Never rejects. If the upgrade never
   * completes (the client went away meanwhile), the place an admitted socket took is given back
   * when its TCP connection closes.
   */
  async prepare(request: IncomingMessage): Promise<void> {
    const admission = await this.admit(request);
    if (!admission.admitted) {
      this.prepared.set(request, { admission });
      return;
    }
    const onClose = () => {
      this.prepared.delete(request);
      this.leave(admission.ip);
    };
    this.prepared.set(request, { admission, onClose });
    request.socket.once('close', onClose);
  }

  /**
   * The decision `prepare` made for `request`; from now on the gateway owns its place. The
   * listener `prepare` left on the TCP socket goes: it holds the request, headers and all, which
   * an open socket must not keep for its lifetime.
   */
  take(request: IncomingMessage): Admission {
    const prepared = this.prepared.get(request);
    this.prepared.delete(request);
    if (prepared?.onClose) request.socket.off('close', prepared.onClose);
    return (
      prepared?.admission ?? {
        admitted: false,
        room: null,
        code: CloseCode.Unauthorized,
        reason: CloseReason.Unauthorized,
      }
    );
  }

  async admit(request: IncomingMessage): Promise<Admission> {
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
    const ticket = url.searchParams.get('ticket');
    let holder: TokenHolder | null;
    if (ticket === null) {
      holder = this.tokens.verify(url.searchParams.get('token'), room);
    } else {
      let claims: TicketClaims | null;
      try {
        claims = await this.tickets.redeem(ticket);
      } catch {
        return refuse(CloseCode.TryAgainLater, CloseReason.StorageUnavailable);
      }
      holder = claims?.room === room ? { name: claims.name, holder: claims.holder } : null;
    }
    if (holder === null) return refuse(CloseCode.Unauthorized, CloseReason.Unauthorized);
    const ip = this.clientIp.ofRequest(request);
    if (!(await this.limiter.acquire(ip))) {
      return refuse(CloseCode.TryAgainLater, CloseReason.TooManyConnections);
    }
    return { admitted: true, room, name: holder.name, holder: holder.holder, ip };
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
