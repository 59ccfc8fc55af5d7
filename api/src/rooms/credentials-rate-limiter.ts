import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Clock } from '../common/clock';
import { TokenBucket } from '../common/token-bucket';
import { AppConfig } from '../config/app-config';

const SWEEP_INTERVAL_MS = 60_000;

/** Credential and room-creation calls per client IP: a bucket of N refilled at N per minute. */
@Injectable()
export class CredentialsRateLimiter implements OnModuleDestroy {
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();
  }

  /** 0 when the call may go ahead, otherwise the milliseconds to wait. */
  take(ip: string): number {
    const now = this.clock.now();
    let bucket = this.buckets.get(ip);
    if (!bucket) {
      const perMinute = this.config.credentialsPerMinute;
      bucket = new TokenBucket(perMinute, perMinute / 60, now);
      this.buckets.set(ip, bucket);
    }
    return bucket.take(now) ? 0 : bucket.msUntilAvailable(now);
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
