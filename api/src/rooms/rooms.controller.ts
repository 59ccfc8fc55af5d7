import { Body, Controller, HttpCode, HttpStatus, Post, UseGuards } from '@nestjs/common';
import { type CreateRoomResponse } from '@taco/protocol';
import { CreateRoomDto } from './dto/create-room.dto';
import { CredentialsThrottleGuard } from './ip-throttle.guard';
import { RoomsService } from './rooms.service';

/** `POST /api/room`; `POST /api/room/:room_id` is `CredentialsRoute`. */
@Controller('room')
@UseGuards(CredentialsThrottleGuard)
export class RoomsController {
  constructor(private readonly rooms: RoomsService) {}

  /** Creates the room if absent (idempotent) and returns credentials for it. */
  @Post()
  @HttpCode(HttpStatus.CREATED)
  async create(@Body() dto: CreateRoomDto): Promise<CreateRoomResponse> {
    const { name, token } = await this.rooms.issue(dto.room_id, dto.senderName);
    return { name, room: dto.room_id, token };
  }
}
