import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { AppConfig } from '../config/app-config';
import { CredentialsRateLimiter, MemoryCredentialsRateLimiter } from './credentials-rate-limiter';
import { CredentialsThrottleGuard } from './credentials-throttle.guard';
import { RoomTokenService } from './room-token.service';
import { RoomsController } from './rooms.controller';
import { RoomsService } from './rooms.service';
import { TokenSecret } from './token-secret';
import { TokenSecretModule } from './token-secret.module';

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
  controllers: [RoomsController],
  providers: [
    RoomsService,
    RoomTokenService,
    { provide: CredentialsRateLimiter, useClass: MemoryCredentialsRateLimiter },
    CredentialsThrottleGuard,
  ],
  exports: [RoomTokenService],
})
export class RoomsModule {}
