import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Clock } from '../common/clock';
import { TokenBucket } from '../common/token-bucket';
import { AppConfig } from '../config/app-config';

/**
 * Credential and room-creation calls per client IP: a budget of `CREDENTIALS_PER_MINUTE`,
 * refilled over a minute. The port (also the injection token): this replica's own counts today,
 * a driver shared through Redis once per-IP limits hold across replicas.
 */
export abstract class CredentialsRateLimiter {
  /** Takes one call from `ip`'s budget: 0 when it may go ahead, else the milliseconds to wait. */
  abstract take(ip: string): Promise<number>;
}

const SWEEP_INTERVAL_MS = 60_000;

/** The in-process driver: a token bucket per address, forgotten once it has refilled. */
@Injectable()
export class MemoryCredentialsRateLimiter
  extends CredentialsRateLimiter
  implements OnModuleDestroy
{
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    super();
    this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();
  }

  take(ip: string): Promise<number> {
    const now = this.clock.now();
    let bucket = this.buckets.get(ip);
    if (!bucket) {
      const perMinute = this.config.credentialsPerMinute;
      bucket = new TokenBucket(perMinute, perMinute / 60, now);
      this.buckets.set(ip, bucket);
    }
    return Promise.resolve(bucket.take(now) ? 0 : bucket.msUntilAvailable(now));
  }

  /** Forgets addresses whose bucket has refilled: they would start full anyway. */
  sweep(): void {
    const now = this.clock.now();
    for (const [ip, bucket] of this.buckets) {
      if (bucket.isFull(now)) this.buckets.delete(ip);
    }
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }
}
