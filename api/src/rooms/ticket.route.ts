import { type IncomingMessage } from 'node:http';
import { BadRequestException, HttpStatus, Injectable, UnauthorizedException } from '@nestjs/common';
import {
  type RoomTicketResponse,
  TICKET_UNAUTHORIZED_MESSAGE,
  validateRoomName,
} from '@taco/protocol';
import { parseJsonBody } from '../common/json-body';
import { hasPlainBody, type PlainAnswer, type PlainRoute, pathParam } from '../common/plain-route';
import { ROOM_PATH } from './room-id.pipe';
import { LookupThrottleGuard } from './ip-throttle.guard';
import { RoomTokenService } from './room-token.service';
import { bearerToken } from './tickets.controller';
import { TicketStore } from '../bus/ticket-store.port';

const PATH_SUFFIX = '/ticket';

/**
 * `POST /api/room/:room_id/ticket` answered ahead of Express (`PlainRoutes`): every reconnect of a
 * browser makes it. Same contract as `TicketsController.issue`. It answers a single path segment
 * that decodes, with no body or a body Express's JSON parser reads as it is (plain JSON within the
 * limit, or untyped, which Express does not read); anything else takes the Nest route.
 */
@Injectable()
export class TicketRoute implements PlainRoute {
  constructor(
    private readonly tokens: RoomTokenService,
    private readonly tickets: TicketStore,
    private readonly throttle: LookupThrottleGuard,
  ) {}

  match(request: IncomingMessage): string | null {
    const room = pathParam(request, ROOM_PATH, PATH_SUFFIX);
    return room !== null && hasPlainBody(request) ? room : null;
  }

  /**
   * The Nest route's answers in its order: a malformed JSON body (its body parser), the budget
   * (its guard), the room id (its path pipe), the Bearer token, the ticket. The token is checked
   * here without Redis, so a valid one's ticket is stored in the same round trip as the budget is
   * taken (a ticket stored for a call then refused for its budget is never handed out, and lapses).
   */
  async handle(request: IncomingMessage, room: string, raw: Buffer): Promise<PlainAnswer> {
    parseJsonBody(raw);
    const problem = validateRoomName(room);
    const holder =
      problem === null
        ? this.tokens.verify(bearerToken(request.headers.authorization), room)
        : null;
    const issued = await this.throttle.takeAlongside(
      request,
      holder === null ? Promise.resolve(null) : this.tickets.issue(room, holder),
    );
    if (problem !== null) throw new BadRequestException([problem]);
    const ticket = issued();
    // No ticket was made exactly when the token was not valid for the room.
    if (ticket === null) throw new UnauthorizedException(TICKET_UNAUTHORIZED_MESSAGE);
    const answer: RoomTicketResponse = { ticket };
    return { status: HttpStatus.CREATED, body: answer };
  }
}
