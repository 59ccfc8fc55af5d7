import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ClientIpResolver } from './client-ip';
import { Clock, SystemClock } from './clock';

/** Process-wide helpers: the clock and the client address resolver. */
@Global()
@Module({
  providers: [
    { provide: Clock, useClass: SystemClock },
    {
      provide: ClientIpResolver,
      useFactory: (config: AppConfig) => new ClientIpResolver(config.trustProxy),
      inject: [AppConfig],
    },
  ],
  exports: [Clock, ClientIpResolver],
})
export class CommonModule {}
