import { createSecretKey } from 'node:crypto';
import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { AppConfig } from '../config/app-config';
import { CredentialsRateLimiter } from './credentials-rate-limiter';
import { CredentialsThrottleGuard } from './credentials-throttle.guard';
import { RoomTokenService } from './room-token.service';
import { RoomsController } from './rooms.controller';
import { RoomsService } from './rooms.service';

@Module({
  imports: [
    JwtModule.registerAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => {
        // A ready secret key: given a string, jsonwebtoken first tries (and fails) to parse it as
        // a PEM key on every sign and verify, which costs two exceptions per token.
        const key = createSecretKey(Buffer.from(config.jwtSecret));
        return {
          secretOrKeyProvider: () => key,
          signOptions: { algorithm: 'HS256', expiresIn: config.tokenTtlSeconds },
          verifyOptions: { algorithms: ['HS256'] },
        };
      },
    }),
  ],
  controllers: [RoomsController],
  providers: [RoomsService, RoomTokenService, CredentialsRateLimiter, CredentialsThrottleGuard],
  exports: [RoomTokenService],
})
export class RoomsModule {}
