import { randomBytes } from 'node:crypto';

/** What a ticket stands for: a room, and the name and holder of the token it was issued for. */
export interface TicketClaims {
  room: string;
  /** The trimmed user name the token carries. */
  name: string;
  /** The credential that holds the name (see `TokenHolder`). */
  holder: string;
}

/** Tickets are 32 characters of base64url (24 random bytes); anything else is never looked up. */
export const TICKET_FORMAT = /^[A-Za-z0-9_-]{32}$/;

export function newTicket(): string {
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
  abstract issue(room: string, holder: Omit<TicketClaims, 'room'>): Promise<string>;
  /**
   * Spends `ticket`: its claims the first time within its lifetime, `null` ever after (or for a
   * string that never was a ticket). Rejects only when the store cannot be reached.
   */
  abstract redeem(ticket: string): Promise<TicketClaims | null>;
}
