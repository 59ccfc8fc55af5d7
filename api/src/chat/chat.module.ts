import { Module } from '@nestjs/common';
import { RoomsModule } from '../rooms/rooms.module';
import { ChatGateway } from './chat.gateway';
import { ConnectionLimiter } from './connection-limiter';
import { PresenceKeeper } from './presence-keeper.service';
import { RoomHub } from './room-hub.service';

@Module({
  imports: [RoomsModule],
  providers: [ChatGateway, RoomHub, ConnectionLimiter, PresenceKeeper],
})
export class ChatModule {}
