import { Body, Controller, HttpCode, HttpStatus, Param, Post, UseGuards } from '@nestjs/common';
import { type CreateRoomResponse, type RoomCredentialsResponse } from '@taco/protocol';
import { CreateRoomDto } from './dto/create-room.dto';
import { RoomCredentialsDto } from './dto/room-credentials.dto';
import { CredentialsThrottleGuard } from './ip-throttle.guard';
import { RoomIdPipe } from './room-id.pipe';
import { RoomsService } from './rooms.service';

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

  /** Credentials for a room. */
  @Post(':room_id')
  @HttpCode(HttpStatus.OK)
  async credentials(
    @Param('room_id', RoomIdPipe) room: string,
    @Body() dto: RoomCredentialsDto,
  ): Promise<RoomCredentialsResponse> {
    const { name, token } = await this.rooms.issue(room, dto.senderName);
    return { room_id: room, sender_id: name, token };
  }
}
