import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { AppConfig } from '../config/app-config';
import { PlainRoutes } from '../common/plain-route';
import { CredentialsRoute } from './credentials.route';
import { CredentialsThrottleGuard, LookupThrottleGuard } from './ip-throttle.guard';
import { RoomTokenService } from './room-token.service';
import { RoomDirectoryController } from './room-directory.controller';
import { RoomsController } from './rooms.controller';
import { RoomsService } from './rooms.service';
import { TokenSecret } from './token-secret';
import { TokenSecretModule } from './token-secret.module';
import { TicketRoute } from './ticket.route';

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
    CredentialsThrottleGuard,
    LookupThrottleGuard,
  ],
  exports: [RoomTokenService, LookupThrottleGuard],
})
export class RoomsModule {}
