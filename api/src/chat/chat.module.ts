import { Module } from '@nestjs/common';
import { RoomsModule } from '../rooms/rooms.module';
import { ChatGateway } from './chat.gateway';
import { ConnectionAdmission } from './connection-admission';
import { HeartbeatService } from './heartbeat.service';
import { PresenceKeeper } from './presence-keeper.service';
import { RoomControls } from './room-controls.service';
import { RoomFrameHandler } from './room-frame-handler';
import { RoomHub } from './room-hub.service';

@Module({
  imports: [RoomsModule],
  providers: [
    ChatGateway,
    { provide: RoomFrameHandler, useExisting: ChatGateway },
    RoomHub,
    RoomControls,
    ConnectionAdmission,
    HeartbeatService,
    PresenceKeeper,
  ],
})
export class ChatModule {}
