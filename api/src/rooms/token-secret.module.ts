import { Inject, Module, type OnModuleDestroy } from '@nestjs/common';
import { TokenSecretStore } from '../bus/token-secret-store.port';
import { AppConfig } from '../config/app-config';
import { TokenSecret } from './token-secret';

/** Provides the `TokenSecret`: the operator's, one per boot, or one the replicas agree on. */
@Module({
  providers: [
    {
      provide: TokenSecret,
      useFactory: async (config: AppConfig, store: TokenSecretStore) => {
        if (config.jwtSecret !== undefined || !store.shared) {
          return TokenSecret.local(config.jwtSecret);
        }
        const secret = await TokenSecret.shared(store);
        secret.keepAgreed(store);
        return secret;
      },
      inject: [AppConfig, TokenSecretStore],
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
