import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { TICKET_TTL_SECONDS } from '@taco/protocol';
import { SHARED_KEYS } from '../bus/redis/redis-keys';
import { type RedisConnections } from '../bus/redis/redis-connections';
import { orUnavailable } from '../common/storage-unavailable';
import { type TokenHolder } from './room-token.service';

/** What a ticket opens: one socket of `room` as `name`. */
/** What a ticket stands for: a room, and the name and holder of the token it was issued for. */
export interface TicketClaims extends TokenHolder {
  room: string;
}

/** Tickets are 32 characters of base64url (24 random bytes); anything else is never looked up. */
const TICKET_FORMAT = /^[A-Za-z0-9_-]{32}$/;

function newTicket(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * Single-use socket tickets (`POST /api/room/:room_id/ticket`, then `?ticket=` on the socket), so
 * a browser's URL and a proxy's log never hold the long-lived token. The port (also the
 * injection token): in this process when embedded, in Redis when replicas share one, so a ticket
 * is spent once across all of them.
 */
export abstract class TicketStore {
  /**
   * A new ticket for `holder`'s name in `room`, valid for `TICKET_TTL_SECONDS`; a 503 when it
   * cannot be stored (Redis unreachable), as every call that needs storage answers then.
   */
  abstract issue(room: string, holder: TokenHolder): Promise<string>;
  /**
   * Spends `ticket`: its claims the first time within its lifetime, `null` ever after (or for a
   * string that never was a ticket). Rejects only when the store cannot be reached.
   */
  abstract redeem(ticket: string): Promise<TicketClaims | null>;
}

/** Redis: `SET … EX` on issue, `GETDEL` on redeem, so exactly one redeemer wins. */
export class RedisTicketStore extends TicketStore {
  private readonly logger = new Logger(RedisTicketStore.name);

  constructor(private readonly redis: RedisConnections) {
    super();
  }

  async issue(room: string, { name, holder }: TokenHolder): Promise<string> {
    const ticket = newTicket();
    const claims: TicketClaims = { room, name, holder };
    await orUnavailable(this.logger, 'Storing a ticket', () =>
      this.redis.command.set(
        SHARED_KEYS.ticket(ticket),
        JSON.stringify(claims),
        'EX',
        TICKET_TTL_SECONDS,
      ),
    );
    return ticket;
  }

  async redeem(ticket: string): Promise<TicketClaims | null> {
    if (!TICKET_FORMAT.test(ticket)) return null;
    const stored = await this.redis.command.getdel(SHARED_KEYS.ticket(ticket));
    if (stored === null) return null;
    const claims = JSON.parse(stored) as Partial<TicketClaims>;
    // A ticket issued by a replica of a build before holders: its holder is unknown.
    return { room: String(claims.room), name: String(claims.name), holder: claims.holder ?? '' };
  }
}

/** In this process: a map of live tickets, each dropped when spent or once expired. */
export class MemoryTicketStore extends TicketStore {
  private readonly tickets = new Map<string, TicketClaims & { expiresAt: number }>();

  constructor(private readonly now: () => number) {
    super();
  }

  issue(room: string, { name, holder }: TokenHolder): Promise<string> {
    this.sweep();
    const ticket = newTicket();
    const expiresAt = this.now() + TICKET_TTL_SECONDS * 1000;
    this.tickets.set(ticket, { room, name, holder, expiresAt });
    return Promise.resolve(ticket);
  }

  redeem(ticket: string): Promise<TicketClaims | null> {
    const entry = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    if (!entry || entry.expiresAt <= this.now()) return Promise.resolve(null);
    return Promise.resolve({ room: entry.room, name: entry.name, holder: entry.holder });
  }

  /** Drops expired tickets. They all live as long, so the oldest come first in the map. */
  private sweep(): void {
    const now = this.now();
    for (const [ticket, entry] of this.tickets) {
      if (entry.expiresAt > now) return;
      this.tickets.delete(ticket);
    }
  }
}
