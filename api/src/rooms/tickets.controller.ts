import {
  Controller,
  Headers,
  HttpCode,
  HttpStatus,
  Param,
  Post,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import { type RoomTicketResponse, TICKET_UNAUTHORIZED_MESSAGE } from '@taco/protocol';
import { LookupThrottleGuard } from './ip-throttle.guard';
import { RoomIdPipe } from './room-id.pipe';
import { RoomTokenService } from './room-token.service';
import { TicketStore } from '../bus/ticket-store.port';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The token of an `Authorization: Bearer <token>` header, or `undefined`. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return BEARER.exec(authorization ?? '')?.[1];
}

@Controller('room')
@UseGuards(LookupThrottleGuard)
export class TicketsController {
  constructor(
    private readonly tokens: RoomTokenService,
    private readonly tickets: TicketStore,
  ) {}

  /** A single-use socket ticket for the room of the Bearer token, so no URL carries the token. */
  @Post(':room_id/ticket')
  @HttpCode(HttpStatus.CREATED)
  async issue(
    @Param('room_id', RoomIdPipe) room: string,
    @Headers('authorization') authorization: string | undefined,
  ): Promise<RoomTicketResponse> {
    const holder = this.tokens.verify(bearerToken(authorization), room);
    if (holder === null) throw new UnauthorizedException(TICKET_UNAUTHORIZED_MESSAGE);
    return { ticket: await this.tickets.issue(room, holder) };
  }
}
