import { TokenBucket } from '../../common/token-bucket';
import { IpRateLimiter } from '../ip-rate-limiter.port';

const SWEEP_INTERVAL_MS = 60_000;

/** In this process: a token bucket per address refilled over a minute, forgotten once full. */
export class MemoryIpRateLimiter extends IpRateLimiter {
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number,
  ) {
    super();
  }

  take(ip: string): Promise<number> {
    const now = this.now();
    let bucket = this.buckets.get(ip);
    if (!bucket) {
      bucket = new TokenBucket(this.perMinute, this.perMinute / 60, now);
      this.buckets.set(ip, bucket);
    }
    return Promise.resolve(bucket.take(now) ? 0 : bucket.msUntilAvailable(now));
  }

  /** Forgets addresses whose bucket has refilled: they would start full anyway. */
  sweep(): void {
    const now = this.now();
    for (const [ip, bucket] of this.buckets) {
      if (bucket.isFull(now)) this.buckets.delete(ip);
    }
  }

  override close(): void {
    clearInterval(this.sweeper);
  }
}
