import { Module } from '@nestjs/common';
import { RoomsModule } from '../rooms/rooms.module';
import { ChatGateway } from './chat.gateway';
import { ConnectionLimiter } from './connection-limiter';
import { RoomHub } from './room-hub.service';

@Module({
  imports: [RoomsModule],
  providers: [ChatGateway, RoomHub, ConnectionLimiter],
})
export class ChatModule {}
