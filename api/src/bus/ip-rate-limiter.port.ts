/** A per-client-IP budget of HTTP calls. */
export abstract class IpRateLimiter {
  /** Takes one call from `ip`'s budget: 0 when it may go ahead, else the milliseconds to wait. */
  abstract take(ip: string): Promise<number>;
  /** Stops background work. */
  close(): void {}
}

/**
 * Credential and room-creation calls per client IP (`CREDENTIALS_PER_MINUTE`). The injection
 * token; the driver is an `IpRateLimiter`.
 */
export abstract class CredentialsRateLimiter extends IpRateLimiter {}

/**
 * Ticket, room-name and room-info calls per client IP: a budget of their own, four times the
 * credentials budget, so opening sockets never eats into asking for credentials.
 */
export abstract class LookupRateLimiter extends IpRateLimiter {}

export const LOOKUPS_PER_CREDENTIAL = 4;
