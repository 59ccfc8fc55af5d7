import { type DynamicModule, Module } from '@nestjs/common';
import { type Logger } from 'pino';
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
  /** `logger`: the process's pino logger (`createLogger`), which Nest logs through too. */
  static forRoot(config: AppConfig, logger: Logger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        loggingModule(logger),
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
