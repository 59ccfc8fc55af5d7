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

/**
 * Every HTTP error as `{statusCode, error, message}` JSON: Nest's own exceptions as they are,
 * client errors from middleware (malformed JSON, a body too large) with their status, and
 * anything else as a 500 with no detail. Never a stack trace.
 */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) return;
    if (exception instanceof HttpException) {
      response.status(exception.getStatus()).json(this.bodyOf(exception));
      return;
    }
    const status = statusOf(exception);
    if (status !== undefined && status < 500) {
      const error = STATUS_CODES[status] ?? 'Error';
      response.status(status).json({ statusCode: status, error, message: error });
      return;
    }
    const request = host.switchToHttp().getRequest<IdentifiedRequest>();
    this.logger.error({
      msg: `Request failed: ${exception instanceof Error ? exception.message : String(exception)}`,
      reqId: request.id,
      stack: exception instanceof Error ? exception.stack : undefined,
    });
    response.status(HttpStatus.INTERNAL_SERVER_ERROR).json({
      statusCode: 500,
      error: STATUS_CODES[500],
      message: SERVER_ERROR_MESSAGE,
    });
  }

  private bodyOf(exception: HttpException): ApiErrorBody {
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
}
