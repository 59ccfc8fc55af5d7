import {
  type CanActivate,
  type ExecutionContext,
  HttpException,
  HttpStatus,
  Injectable,
} from '@nestjs/common';
import { RATE_LIMITED_MESSAGE } from '@taco/protocol';
import { type Request, type Response } from 'express';
import { ClientIpResolver } from '../common/client-ip';
import { MetricsService } from '../metrics/metrics.service';
import { CredentialsRateLimiter, type IpRateLimiter, LookupRateLimiter } from './ip-rate-limiter';

/** Answers 429 with `Retry-After` when a client IP is over its budget of calls. */
abstract class IpThrottleGuard implements CanActivate {
  constructor(
    private readonly limiter: IpRateLimiter,
    private readonly clientIp: ClientIpResolver,
    private readonly metrics: MetricsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const ip = this.clientIp.ofRequest(request);
    const waitMs = await this.limiter.take(ip);
    if (waitMs === 0) return true;
    this.metrics.httpRateLimited.inc();
    http
      .getResponse<Response>()
      .setHeader('Retry-After', String(Math.max(1, Math.ceil(waitMs / 1000))));
    // `HttpExceptionFilter` adds the status and its standard reason phrase.
    throw new HttpException(RATE_LIMITED_MESSAGE, HttpStatus.TOO_MANY_REQUESTS);
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
