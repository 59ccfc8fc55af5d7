import { ConnectionLimiter } from '../connection-limiter.port';

/** This process's open connections per address. */
export class MemoryConnectionLimiter extends ConnectionLimiter {
  private readonly counts = new Map<string, number>();

  constructor(private readonly cap: number) {
    super();
  }

  acquire(ip: string): Promise<boolean> {
    return Promise.resolve(this.take(ip));
  }

  /** The same as `acquire`, answered at once. */
  take(ip: string): boolean {
    const count = this.counts.get(ip) ?? 0;
    if (count >= this.cap) return false;
    this.counts.set(ip, count + 1);
    return true;
  }

  release(ip: string): void {
    const count = this.counts.get(ip) ?? 0;
    if (count <= 1) this.counts.delete(ip);
    else this.counts.set(ip, count - 1);
  }

  /** Every address with open connections, and how many. */
  entries(): IterableIterator<[string, number]> {
    return this.counts.entries();
  }

  countOf(ip: string): number {
    return this.counts.get(ip) ?? 0;
  }
}
