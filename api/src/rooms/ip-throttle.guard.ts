import { type IncomingMessage } from 'node:http';
import {
  type CanActivate,
  type ExecutionContext,
  HttpException,
  HttpStatus,
  Injectable,
} from '@nestjs/common';
import { RATE_LIMITED_MESSAGE } from '@taco/protocol';
import { type Request } from 'express';
import { ClientIpResolver } from '../common/client-ip';
import { MetricsService } from '../metrics/metrics.service';
import {
  CredentialsRateLimiter,
  type IpRateLimiter,
  LookupRateLimiter,
} from '../bus/ip-rate-limiter.port';

/** 429: a client IP over its budget, with the `Retry-After` seconds to send (`httpErrorAnswer`). */
export class RateLimitedException extends HttpException {
  readonly retryAfter: string;

  constructor(waitMs: number) {
    // `httpErrorAnswer` adds the status and its standard reason phrase.
    super(RATE_LIMITED_MESSAGE, HttpStatus.TOO_MANY_REQUESTS);
    this.retryAfter = String(Math.max(1, Math.ceil(waitMs / 1000)));
  }
}

/** Answers 429 with `Retry-After` when a client IP is over its budget of calls. */
abstract class IpThrottleGuard implements CanActivate {
  constructor(
    private readonly limiter: IpRateLimiter,
    private readonly clientIp: ClientIpResolver,
    private readonly metrics: MetricsService,
  ) {}

  /** Takes one call from the budget of `request`'s client: `null`, or the 429 to answer. */
  async take(request: IncomingMessage): Promise<RateLimitedException | null> {
    const waitMs = await this.limiter.take(this.clientIp.ofRequest(request));
    if (waitMs === 0) return null;
    this.metrics.httpRateLimited.inc();
    return new RateLimitedException(waitMs);
  }

  /**
   * Takes `request`'s budget while `step` runs, so both reach Redis in one round trip. Throws the
   * budget's refusal (or failure) first, as the guard would before the route; otherwise returns a
   * reader of the step's outcome, for the route to call after its own checks (it throws the
   * step's failure then).
   */
  async takeAlongside<T>(request: IncomingMessage, step: Promise<T>): Promise<() => T> {
    const [refusal, outcome] = await Promise.allSettled([this.take(request), step]);
    if (refusal.status === 'rejected') throw refusal.reason;
    if (refusal.value !== null) throw refusal.value;
    return () => {
      if (outcome.status === 'rejected') throw outcome.reason;
      return outcome.value;
    };
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const refusal = await this.take(context.switchToHttp().getRequest<Request>());
    if (refusal === null) return true;
    throw refusal;
  }
}

/** Credential and room-creation calls (`CREDENTIALS_PER_MINUTE` per IP). */
@Injectable()
export class CredentialsThrottleGuard extends IpThrottleGuard {
  constructor(
    limiter: CredentialsRateLimiter,
    clientIp: ClientIpResolver,
    metrics: MetricsService,
  ) {
    super(limiter, clientIp, metrics);
  }
}

/** Ticket, room-name and room-info calls (their own budget, 4× the credentials one). */
@Injectable()
export class LookupThrottleGuard extends IpThrottleGuard {
  constructor(limiter: LookupRateLimiter, clientIp: ClientIpResolver, metrics: MetricsService) {
    super(limiter, clientIp, metrics);
  }
}
