import { type DynamicModule, Module } from '@nestjs/common';
import { type DestinationStream } from 'pino';
import { BusModule } from './bus/bus.module';
import { ChatModule } from './chat/chat.module';
import { CommonModule } from './common/common.module';
import { loggingModule } from './common/logging';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { HealthModule } from './health/health.module';
import { MetricsModule } from './metrics/metrics.module';
import { RoomsModule } from './rooms/rooms.module';

@Module({})
export class AppModule {
  /** `logDestination` replaces stdout for the logs (tests read them). */
  static forRoot(config: AppConfig, logDestination?: DestinationStream): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        loggingModule(config, logDestination),
        CommonModule,
        MetricsModule,
        BusModule,
        HealthModule,
        RoomsModule,
        ChatModule,
      ],
    };
  }
}
