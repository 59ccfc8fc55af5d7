import { TICKET_TTL_SECONDS } from '@taco/protocol';
import { orUnavailable, type WarnLogger } from '../../common/storage-unavailable';
import { newTicket, TICKET_FORMAT, type TicketClaims, TicketStore } from '../ticket-store.port';
import { type RedisConnections } from './redis-connections';
import { SHARED_KEYS } from './redis-keys';

/** Redis: `SET … EX` on issue, `GETDEL` on redeem, so exactly one redeemer wins. */
export class RedisTicketStore extends TicketStore {
  /** `logger`: where a ticket that could not be stored is logged (context `RedisTicketStore`). */
  constructor(
    private readonly redis: RedisConnections,
    private readonly logger: WarnLogger,
  ) {
    super();
  }

  async issue(room: string, { name, holder }: Omit<TicketClaims, 'room'>): Promise<string> {
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
