/**
 * Open connections per client IP, capped by `CONNECTIONS_PER_IP`. The port (also the injection
 * token): this process's own count when embedded, the count over every replica with Redis.
 */
export abstract class ConnectionLimiter {
  /** Takes a place for one more connection from `ip`; false when it is over the cap. */
  abstract acquire(ip: string): Promise<boolean>;
  /** Gives back a place `acquire` took. */
  abstract release(ip: string): void;
  /** Stops background work. */
  close(): void {}
}
