import {
  Global,
  Inject,
  Logger,
  Module,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ClientIpResolver } from './client-ip';
import { Clock, SystemClock } from './clock';

/** How often load balancers named by host name in `TRUST_PROXY` are looked up again. */
const TRUSTED_HOSTS_REFRESH_MS = 5000;

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
export class CommonModule implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('TrustProxy');
  private timer: NodeJS.Timeout | undefined;
  private unresolved = new Set<string>();

  constructor(@Inject(ClientIpResolver) private readonly clientIp: ClientIpResolver) {}

  async onModuleInit(): Promise<void> {
    if (!this.clientIp.hasHostNames) return;
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), TRUSTED_HOSTS_REFRESH_MS).unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** Looks the names up again, and says when one stops or starts resolving. */
  private async refresh(): Promise<void> {
    const now = new Set(await this.clientIp.refresh());
    for (const host of now) {
      if (!this.unresolved.has(host)) {
        this.logger.log(`TRUST_PROXY host "${host}" does not resolve (yet); trusted once it does`);
      }
    }
    for (const host of this.unresolved) {
      if (!now.has(host)) this.logger.log(`TRUST_PROXY host "${host}" resolves now`);
    }
    this.unresolved = now;
  }
}
