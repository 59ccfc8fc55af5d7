import { Inject, Module, type OnModuleDestroy } from '@nestjs/common';
import { RedisConnections } from '../bus/redis/redis-connections';
import { AppConfig } from '../config/app-config';
import { TokenSecret } from './token-secret';

/** Provides the `TokenSecret`: the operator's, one per boot, or one the replicas agree on. */
@Module({
  providers: [
    {
      provide: TokenSecret,
      useFactory: async (config: AppConfig, redis: RedisConnections | null) => {
        if (config.jwtSecret !== undefined || redis === null) {
          return TokenSecret.local(config.jwtSecret);
        }
        const secret = await TokenSecret.shared(redis);
        secret.keepAgreed(redis);
        return secret;
      },
      inject: [AppConfig, RedisConnections],
    },
  ],
  exports: [TokenSecret],
})
export class TokenSecretModule implements OnModuleDestroy {
  constructor(@Inject(TokenSecret) private readonly secret: TokenSecret) {}

  onModuleDestroy(): void {
    this.secret.stop();
  }
}
