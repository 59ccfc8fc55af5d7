import {
  BadRequestException,
  Body,
  Controller,
  HttpCode,
  HttpStatus,
  Post,
  UseGuards,
} from '@nestjs/common';
import { type CreateRoomResponse, disappearFieldMessage } from '@taco/protocol';
import { CreateRoomDto } from './dto/create-room.dto';
import { CredentialsThrottleGuard } from './ip-throttle.guard';
import { RoomsService } from './rooms.service';

/** `POST /api/room`; `POST /api/room/:room_id` is `CredentialsRoute`. */
@Controller('room')
@UseGuards(CredentialsThrottleGuard)
export class RoomsController {
  constructor(private readonly rooms: RoomsService) {}

  /**
   * Creates the room with the settings asked for when it does not exist (idempotent without
   * settings) and returns credentials for it (protocol/README.md §2.2).
   */
  @Post()
  @HttpCode(HttpStatus.CREATED)
  async create(@Body() dto: CreateRoomDto): Promise<CreateRoomResponse> {
    const choices = this.rooms.disappearChoices;
    if (
      dto.disappear_after !== undefined &&
      dto.disappear_after !== null &&
      !choices.includes(dto.disappear_after)
    ) {
      throw new BadRequestException([disappearFieldMessage(choices)]);
    }
    const issued = await this.rooms.create(
      dto.room_id,
      dto.senderName,
      dto.settings,
      dto.asksForSettings,
    );
    return {
      name: issued.name,
      room: dto.room_id,
      token: issued.token,
      creator: issued.creator,
      settings: issued.settings,
    };
  }
}
