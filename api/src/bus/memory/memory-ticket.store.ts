import { TICKET_TTL_SECONDS } from '@taco/protocol';
import { newTicket, type TicketClaims, TicketStore } from '../ticket-store.port';

/** In this process: a map of live tickets, each dropped when spent or once expired. */
export class MemoryTicketStore extends TicketStore {
  private readonly tickets = new Map<string, TicketClaims & { expiresAt: number }>();

  constructor(private readonly now: () => number) {
    super();
  }

  issue(room: string, { name, holder }: Omit<TicketClaims, 'room'>): Promise<string> {
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
