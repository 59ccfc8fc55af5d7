import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';

/** Open connections per client IP, capped by `CONNECTIONS_PER_IP`. */
@Injectable()
export class ConnectionLimiter {
  private readonly counts = new Map<string, number>();

  constructor(private readonly config: AppConfig) {}

  /** Takes a place for one more connection from `ip`; false when it is over the cap. */
  acquire(ip: string): boolean {
    const count = this.counts.get(ip) ?? 0;
    if (count >= this.config.connectionsPerIp) return false;
    this.counts.set(ip, count + 1);
    return true;
  }

  release(ip: string): void {
    const count = this.counts.get(ip) ?? 0;
    if (count <= 1) this.counts.delete(ip);
    else this.counts.set(ip, count - 1);
  }
}
