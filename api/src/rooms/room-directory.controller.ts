import {
  Controller,
  Get,
  Logger,
  Param,
  ServiceUnavailableException,
  UseGuards,
} from '@nestjs/common';
import {
  generateRoomName,
  NO_FREE_ROOM_NAME_MESSAGE,
  type RoomInfoResponse,
  type RoomNameResponse,
  userNameKey,
} from '@taco/protocol';
import { ChatBus } from '../bus/chat-bus.port';
import { PresenceStore } from '../bus/presence.port';
import { RoomSettingsStore } from '../bus/room-settings.port';
import { orUnavailable } from '../common/storage-unavailable';
import { LookupThrottleGuard } from './ip-throttle.guard';
import { RoomIdPipe } from './room-id.pipe';
import { RoomsService } from './rooms.service';

/** How many names `GET /api/room-name` draws before giving up (each is free with p > 0.99). */
const NAME_DRAWS = 20;

/**
 * What the create form asks before anyone joins: a free room name to suggest, and how busy a
 * room is. Both answer from shared storage, so every replica agrees.
 */
@Controller()
@UseGuards(LookupThrottleGuard)
export class RoomDirectoryController {
  private readonly logger = new Logger(RoomDirectoryController.name);

  constructor(
    private readonly bus: ChatBus,
    private readonly presence: PresenceStore,
    private readonly settings: RoomSettingsStore,
    private readonly rooms: RoomsService,
  ) {}

  /**
   * A generated `colour-animal` name of a room that does not exist (no record, no one in it, no
   * history), and the disappearing-messages choices a new room may take.
   */
  @Get('room-name')
  async roomName(): Promise<RoomNameResponse> {
    for (let draw = 0; draw < NAME_DRAWS; draw++) {
      const room = generateRoomName();
      if (!(await this.isInUse(room))) {
        return { room_id: room, disappear_choices: this.rooms.disappearChoices };
      }
    }
    throw new ServiceUnavailableException(NO_FREE_ROOM_NAME_MESSAGE);
  }

  /** How many distinct names are in the room now, never who, and the room's settings. */
  @Get('room/:room_id')
  async roomInfo(@Param('room_id', RoomIdPipe) room: string): Promise<RoomInfoResponse> {
    const [names, record] = await orUnavailable(this.logger, 'Reading rooms', () =>
      Promise.all([this.presence.names(room), this.settings.get(room)]),
    );
    const distinct = new Set(names.map(userNameKey));
    return {
      room_id: room,
      participants: distinct.size,
      settings: record === null ? null : this.rooms.view(record, false),
    };
  }

  private async isInUse(room: string): Promise<boolean> {
    const [names, stored, record] = await orUnavailable(this.logger, 'Reading rooms', () =>
      Promise.all([this.presence.names(room), this.bus.hasRoom(room), this.settings.get(room)]),
    );
    return names.length > 0 || stored || record !== null;
  }
}
