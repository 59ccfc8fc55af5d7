import { type IncomingMessage } from 'node:http';
import {
  BadRequestException,
  ForbiddenException,
  HttpStatus,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import {
  REMOVED_MESSAGE,
  type RoomTicketResponse,
  TICKET_UNAUTHORIZED_MESSAGE,
  validateRoomName,
} from '@taco/protocol';
import { type PlainAnswer, type PlainRoute } from '../common/plain-route';
import { bearerToken } from './bearer';
import { ROOM_PATH } from './room-id.pipe';
import { LookupThrottleGuard } from './ip-throttle.guard';
import { RoomTokenService } from './room-token.service';
import { RoomSettingsStore } from '../bus/room-settings.port';
import { TicketStore } from '../bus/ticket-store.port';

/**
 * `POST /api/room/:room_id/ticket` (protocol/README.md §2.4), which every reconnect of a browser
 * makes: answered ahead of Express (`PlainRoutes`), its only definition. A single-use socket
 * ticket for the room of the Bearer token, so no URL carries the token; a JSON body is read (and
 * refused if unreadable) as every route's is, then ignored.
 */
@Injectable()
export class TicketRoute implements PlainRoute {
  readonly prefix = ROOM_PATH;
  readonly suffix = '/ticket';

  constructor(
    private readonly tokens: RoomTokenService,
    private readonly tickets: TicketStore,
    private readonly throttle: LookupThrottleGuard,
    private readonly rooms: RoomSettingsStore,
  ) {}

  /**
   * The checks in the order of §2.1, after the body was read: the budget, the room id, the Bearer
   * token, the ticket. The token is checked without Redis, so a valid one's ticket is stored in
   * the same round trip as the budget is taken and the holder's removal looked up (a ticket stored
   * for a call then refused is never handed out, and lapses).
   */
  async handle(request: IncomingMessage, room: string): Promise<PlainAnswer> {
    const problem = validateRoomName(room);
    const holder =
      problem === null
        ? this.tokens.verify(bearerToken(request.headers.authorization), room)
        : null;
    const issued = await this.throttle.takeAlongside(
      request,
      holder === null
        ? Promise.resolve(null)
        : Promise.all([
            this.tickets.issue(room, holder),
            this.rooms.isRemoved(room, holder.holder),
          ]),
    );
    if (problem !== null) throw new BadRequestException([problem]);
    const made = issued();
    // No ticket was made exactly when the token was not valid for the room.
    if (made === null) throw new UnauthorizedException(TICKET_UNAUTHORIZED_MESSAGE);
    const [ticket, removed] = made;
    if (removed) throw new ForbiddenException(REMOVED_MESSAGE);
    const answer: RoomTicketResponse = { ticket };
    return { status: HttpStatus.CREATED, body: answer };
  }
}
