import { type IncomingMessage } from 'node:http';
import { BadRequestException, ConflictException, Injectable } from '@nestjs/common';
import {
  BODY_NOT_OBJECT_MESSAGE,
  NAME_TAKEN_MESSAGE,
  normalizeUserName,
  type RoomCredentialsResponse,
  validateRoomName,
  validateUserName,
} from '@taco/protocol';
import { parseJsonBody } from '../common/json-body';
import { hasPlainBody, type PlainAnswer, type PlainRoute, pathParam } from '../common/plain-route';
import { ROOM_PATH } from './room-id.pipe';
import { credentialsNameField } from './dto/room-credentials.dto';
import { CredentialsThrottleGuard } from './ip-throttle.guard';
import { RoomsService } from './rooms.service';

/**
 * `POST /api/room/:room_id` answered ahead of Express (`PlainRoutes`), the connect path's costliest
 * step otherwise. Same contract as `RoomsController.credentials`. It answers a single path
 * segment that decodes with a body declared as plain JSON (UTF-8, no content coding) by a
 * `Content-Length` within the limit; any other request (chunked, compressed, another charset or
 * type, too large, a query string) takes the Nest route. The budget and the name check go to
 * Redis together, in one round trip.
 */
@Injectable()
export class CredentialsRoute implements PlainRoute {
  constructor(
    private readonly rooms: RoomsService,
    private readonly throttle: CredentialsThrottleGuard,
  ) {}

  match(request: IncomingMessage): string | null {
    const room = pathParam(request, ROOM_PATH);
    return room !== null && hasPlainBody(request) ? room : null;
  }

  /**
   * The Nest route's steps in its order of answers: a malformed body (parsed before its guard),
   * the budget (its guard), the room id (its path pipe), the body (its validation pipe), the
   * name check. Only the budget and the name check need Redis, so they are sent together.
   */
  async handle(request: IncomingMessage, room: string, raw: Buffer): Promise<PlainAnswer> {
    const body = parseJsonBody(raw);
    let problem: string | null = validateRoomName(room);
    let name: string | null = null;
    if (problem === null && Array.isArray(body)) problem = BODY_NOT_OBJECT_MESSAGE;
    if (problem === null) {
      const fields = body as Partial<Record<'sender_id' | 'sender', unknown>>;
      const given = fields[credentialsNameField(fields)];
      problem = validateUserName(given);
      if (problem === null) name = normalizeUserName(given as string);
    }
    const taken = await this.throttle.takeAlongside(
      request,
      name === null ? Promise.resolve(false) : this.rooms.isTaken(room, name),
    );
    if (problem !== null || name === null) throw new BadRequestException([problem]);
    if (taken()) throw new ConflictException(NAME_TAKEN_MESSAGE);
    const { token } = this.rooms.credentials(room, name);
    const answer: RoomCredentialsResponse = { room_id: room, sender_id: name, token };
    return { status: 200, body: answer };
  }
}
