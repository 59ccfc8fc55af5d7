import { type DynamicModule, Module } from '@nestjs/common';
import { BusModule } from './bus/bus.module';
import { ChatModule } from './chat/chat.module';
import { CommonModule } from './common/common.module';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { HealthModule } from './health/health.module';
import { MetricsModule } from './metrics/metrics.module';
import { RoomsModule } from './rooms/rooms.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
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
