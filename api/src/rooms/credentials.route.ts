import { type IncomingMessage } from 'node:http';
import { BadRequestException, HttpStatus, Injectable } from '@nestjs/common';
import {
  BODY_NOT_OBJECT_MESSAGE,
  normalizeUserName,
  type RoomCredentialsRequest,
  type RoomCredentialsResponse,
  validateRoomName,
  validateUserName,
} from '@taco/protocol';
import { bodyObject } from '../common/body-validation.pipe';
import { type PlainAnswer, type PlainRoute } from '../common/plain-route';
import { bearerToken } from './bearer';
import { ROOM_PATH } from './room-id.pipe';
import { CredentialsThrottleGuard } from './ip-throttle.guard';
import { RoomTokenService } from './room-token.service';
import { RoomsService } from './rooms.service';

/** A credentials body's fields, before validation. */
type CredentialsFields = Readonly<Partial<Record<keyof RoomCredentialsRequest, unknown>>>;

/**
 * The field of a credentials body that carries the name, and is validated: `sender_id`, or
 * `sender` when only that is given.
 */
function credentialsNameField(body: CredentialsFields): keyof RoomCredentialsRequest {
  return body.sender_id !== undefined || body.sender === undefined ? 'sender_id' : 'sender';
}

/**
 * `POST /api/room/:room_id` (protocol/README.md §2.3), which every connect makes: answered ahead
 * of Express (`PlainRoutes`), its only definition. The budget and the name check go to Redis
 * together, in one round trip.
 */
@Injectable()
export class CredentialsRoute implements PlainRoute {
  readonly prefix = ROOM_PATH;
  readonly suffix = '';

  constructor(
    private readonly rooms: RoomsService,
    private readonly throttle: CredentialsThrottleGuard,
    private readonly tokens: RoomTokenService,
  ) {}

  /**
   * The checks in the order of §2.1, after the body was read: the budget, the room id, the body,
   * the room's lock and the name. Only the budget and the room and name checks need Redis, so they
   * are sent together. A caller showing its own token (`Authorization: Bearer`) passes a lock.
   */
  async handle(request: IncomingMessage, room: string, body: unknown): Promise<PlainAnswer> {
    let problem: string | null = validateRoomName(room);
    let name: string | null = null;
    const fields = bodyObject(body) as CredentialsFields | null;
    if (problem === null && fields === null) problem = BODY_NOT_OBJECT_MESSAGE;
    if (problem === null && fields !== null) {
      const given = fields[credentialsNameField(fields)];
      problem = validateUserName(given);
      if (problem === null) name = normalizeUserName(given as string);
    }
    const bearer =
      problem === null
        ? (this.tokens.verify(bearerToken(request.headers.authorization), room)?.holder ?? null)
        : null;
    const found = await this.throttle.takeAlongside(
      request,
      name === null ? Promise.resolve(null) : this.rooms.check(room, name, bearer),
    );
    const findings = found();
    if (problem !== null || name === null || findings === null) {
      throw new BadRequestException([problem]);
    }
    const { token, settings } = this.rooms.credentials(room, name, findings);
    const answer: RoomCredentialsResponse = { room_id: room, sender_id: name, token, settings };
    return { status: HttpStatus.OK, body: answer };
  }
}
