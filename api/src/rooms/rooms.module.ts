import { Inject, Module, type OnModuleDestroy } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { RedisConnections } from '../bus/redis/redis-connections';
import { Clock } from '../common/clock';
import { AppConfig } from '../config/app-config';
import {
  CredentialsRateLimiter,
  type IpRateLimiter,
  LOOKUPS_PER_CREDENTIAL,
  LookupRateLimiter,
  MemoryIpRateLimiter,
  RedisIpRateLimiter,
} from './ip-rate-limiter';
import { PlainRoutes } from '../common/plain-route';
import { CredentialsRoute } from './credentials.route';
import { CredentialsThrottleGuard, LookupThrottleGuard } from './ip-throttle.guard';
import { RoomTokenService } from './room-token.service';
import { RoomDirectoryController } from './room-directory.controller';
import { RoomsController } from './rooms.controller';
import { RoomsService } from './rooms.service';
import { TokenSecret } from './token-secret';
import { TokenSecretModule } from './token-secret.module';
import { MemoryTicketStore, RedisTicketStore, TicketStore } from './tickets';
import { TicketRoute } from './ticket.route';

/** A per-IP budget: in Redis when the replicas share one, else in this process. */
function ipBudget(name: string, perMinute: (config: AppConfig) => number) {
  return (config: AppConfig, clock: Clock, redis: RedisConnections | null): IpRateLimiter =>
    redis
      ? new RedisIpRateLimiter(redis, name, perMinute(config))
      : new MemoryIpRateLimiter(perMinute(config), () => clock.now());
}

@Module({
  imports: [
    TokenSecretModule,
    JwtModule.registerAsync({
      imports: [TokenSecretModule],
      inject: [AppConfig, TokenSecret],
      useFactory: (config: AppConfig, secret: TokenSecret) => ({
        secretOrKeyProvider: () => secret.key,
        signOptions: { algorithm: 'HS256', expiresIn: config.tokenTtlSeconds },
        verifyOptions: { algorithms: ['HS256'] },
      }),
    }),
  ],
  controllers: [RoomsController, RoomDirectoryController],
  providers: [
    RoomsService,
    RoomTokenService,
    PlainRoutes,
    CredentialsRoute,
    TicketRoute,
    {
      provide: CredentialsRateLimiter,
      useFactory: ipBudget('credentials', (config) => config.credentialsPerMinute),
      inject: [AppConfig, Clock, RedisConnections],
    },
    {
      provide: LookupRateLimiter,
      useFactory: ipBudget(
        'lookups',
        (config) => config.credentialsPerMinute * LOOKUPS_PER_CREDENTIAL,
      ),
      inject: [AppConfig, Clock, RedisConnections],
    },
    CredentialsThrottleGuard,
    LookupThrottleGuard,
    {
      provide: TicketStore,
      useFactory: (clock: Clock, redis: RedisConnections | null) =>
        redis ? new RedisTicketStore(redis) : new MemoryTicketStore(() => clock.now()),
      inject: [Clock, RedisConnections],
    },
  ],
  exports: [RoomTokenService, TicketStore, LookupThrottleGuard, LookupRateLimiter],
})
export class RoomsModule implements OnModuleDestroy {
  constructor(
    @Inject(CredentialsRateLimiter) private readonly credentials: IpRateLimiter,
    @Inject(LookupRateLimiter) private readonly lookups: IpRateLimiter,
  ) {}

  onModuleDestroy(): void {
    this.credentials.close();
    this.lookups.close();
  }
}
