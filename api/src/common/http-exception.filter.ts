import { STATUS_CODES } from 'node:http';
import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  HttpException,
  HttpStatus,
  Logger,
} from '@nestjs/common';
import { type ApiErrorBody, SERVER_ERROR_MESSAGE } from '@taco/protocol';
import { type Response } from 'express';
import { type IdentifiedRequest } from './logging';

/** An error thrown by middleware such as the body parser, which carries its HTTP status. */
function statusOf(exception: unknown): number | undefined {
  if (typeof exception !== 'object' || exception === null) return undefined;
  const { status, statusCode } = exception as { status?: unknown; statusCode?: unknown };
  const value = typeof status === 'number' ? status : statusCode;
  return typeof value === 'number' && value >= 400 && value < 600 ? value : undefined;
}

/** The status, JSON body and `Retry-After` (if any) an HTTP error is answered with. */
export interface HttpErrorAnswer {
  status: number;
  body: ApiErrorBody;
  retryAfter?: string;
}

/** The `Retry-After` seconds an exception carries (a 429's, `RateLimitedException`), if any. */
function retryAfterOf(exception: HttpException): string | undefined {
  const { retryAfter } = exception as { retryAfter?: unknown };
  return typeof retryAfter === 'string' ? retryAfter : undefined;
}

function bodyOf(exception: HttpException): ApiErrorBody {
  const status = exception.getStatus();
  const error = STATUS_CODES[status] ?? 'Error';
  const payload = exception.getResponse();
  if (typeof payload === 'string') return { statusCode: status, error, message: payload };
  const { message } = payload as { message?: unknown };
  const text =
    typeof message === 'string' || Array.isArray(message)
      ? (message as string | string[])
      : exception.message;
  return { statusCode: status, error, message: text };
}

/**
 * Every HTTP error as `{statusCode, error, message}`: Nest's own exceptions as they are, client
 * errors from middleware (malformed JSON, a body too large) with their status, and anything else
 * as a 500 with no detail (logged with the request's id). Never a stack trace.
 */
export function httpErrorAnswer(
  exception: unknown,
  reqId: unknown,
  logger: Logger,
): HttpErrorAnswer {
  if (exception instanceof HttpException) {
    const retryAfter = retryAfterOf(exception);
    const answer = { status: exception.getStatus(), body: bodyOf(exception) };
    return retryAfter === undefined ? answer : { ...answer, retryAfter };
  }
  const status = statusOf(exception);
  if (status !== undefined && status < 500) {
    const error = STATUS_CODES[status] ?? 'Error';
    return { status, body: { statusCode: status, error, message: error } };
  }
  logger.error({
    msg: `Request failed: ${exception instanceof Error ? exception.message : String(exception)}`,
    reqId,
    stack: exception instanceof Error ? exception.stack : undefined,
  });
  return {
    status: HttpStatus.INTERNAL_SERVER_ERROR,
    body: { statusCode: 500, error: STATUS_CODES[500] ?? 'Error', message: SERVER_ERROR_MESSAGE },
  };
}

/** Answers every HTTP error that reaches Nest as `httpErrorAnswer` says. */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) return;
    const request = host.switchToHttp().getRequest<IdentifiedRequest>();
    const { status, body, retryAfter } = httpErrorAnswer(exception, request.id, this.logger);
    if (retryAfter !== undefined) response.setHeader('Retry-After', retryAfter);
    response.status(status).json(body);
  }
}
