import { Inject, Module, type OnModuleDestroy } from '@nestjs/common';
import { RedisConnections } from '../bus/redis/redis-connections';
import { AppConfig } from '../config/app-config';
import { RoomsModule } from '../rooms/rooms.module';
import { ChatGateway } from './chat.gateway';
import { ConnectionAdmission } from './connection-admission';
import {
  ConnectionLimiter,
  MemoryConnectionLimiter,
  RedisConnectionLimiter,
} from './connection-limiter';
import { HeartbeatService } from './heartbeat.service';
import { PresenceKeeper } from './presence-keeper.service';
import { RoomFrameHandler } from './room-frame-handler';
import { RoomHub } from './room-hub.service';

@Module({
  imports: [RoomsModule],
  providers: [
    ChatGateway,
    { provide: RoomFrameHandler, useExisting: ChatGateway },
    RoomHub,
    {
      provide: ConnectionLimiter,
      useFactory: (config: AppConfig, redis: RedisConnections | null) =>
        redis
          ? new RedisConnectionLimiter(redis, config.replicaId, config.connectionsPerIp)
          : new MemoryConnectionLimiter(config.connectionsPerIp),
      inject: [AppConfig, RedisConnections],
    },
    ConnectionAdmission,
    HeartbeatService,
    PresenceKeeper,
  ],
})
export class ChatModule implements OnModuleDestroy {
  constructor(@Inject(ConnectionLimiter) private readonly limiter: ConnectionLimiter) {}

  onModuleDestroy(): void {
    this.limiter.close();
  }
}
