import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { type DynamicModule, type LoggerService, Module } from '@nestjs/common';
import { type RequestHandler } from 'express';
import { LoggerModule, Logger as NestPinoLogger, PinoLogger } from 'nestjs-pino';
import { type DestinationStream, type Logger, pino } from 'pino';
import pretty from 'pino-pretty';
import { type AppConfig } from '../config/app-config';

/** A request id a client or load balancer may hand in (`X-Request-Id`); anything else is replaced. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * The process's logger: one JSON object per line (`level` as a word, ISO `time`, `replica`, `msg`
 * and the event's fields) when stdout is not a terminal, pino-pretty's human lines when it is.
 * `destination` replaces stdout (tests read what was logged).
 */
export function createLogger(config: AppConfig, destination?: DestinationStream): Logger {
  if (config.logPretty && destination === undefined) {
    return pino(
      { level: config.logLevel, base: { replica: config.replicaId } },
      pretty({
        colorize: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'replica,context',
        messageFormat: '{if context}[{context}] {end}{msg}',
        singleLine: true,
      }),
    );
  }
  return pino(
    {
      level: config.logLevel,
      base: { replica: config.replicaId },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination(1),
  );
}

/** Every HTTP request gets an id: the one it came with if it is sane, else a new UUID. */
function requestId(request: IncomingMessage, response: ServerResponse): string {
  const given = request.headers['x-request-id'];
  const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  response.setHeader('X-Request-Id', id);
  return id;
}

/** An HTTP request as this middleware leaves it: with its id. */
export type IdentifiedRequest = IncomingMessage & { id?: unknown };

/**
 * HTTP logging: every request gets an id (`req.id`, the `X-Request-Id` response header, `reqId`
 * in what is logged about it); a line per request is written at `debug` (`error` for a 5xx), so
 * at the usual levels a request costs an id and nothing more. Only a request's method and path
 * are logged: never its query string, headers or body (a token may be in any of them).
 *
 * Not pino-http with nestjs-pino's request-scoped logger: that binds the logger with an
 * AsyncLocalStorage, which on Node 20 turns on promise hooks for the whole process, so every
 * promise on the chat path would pay for HTTP logging.
 *
 * The returned function tags one request; `httpLogging` is it as Express middleware, and routes
 * answered before Express (`CredentialsRoute`) call it themselves.
 */
export function requestLogging(
  logger: Logger,
): (request: IdentifiedRequest, response: ServerResponse) => void {
  const perRequest = logger.isLevelEnabled('debug');
  return (request, response) => {
    const id = (request.id = requestId(request, response));
    if (!perRequest) return;
    const started = performance.now();
    response.once('finish', () => {
      const level = response.statusCode >= 500 ? 'error' : 'debug';
      logger[level](
        {
          reqId: id,
          req: { method: request.method, path: (request.url ?? '').split('?', 1)[0] },
          res: { statusCode: response.statusCode },
          responseTimeMs: Math.round(performance.now() - started),
        },
        'request completed',
      );
    });
  };
}

/** `requestLogging` as Express middleware. */
export function httpLogging(logger: Logger): RequestHandler {
  const tag = requestLogging(logger);
  return (request: IdentifiedRequest, response, next) => {
    tag(request, response);
    next();
  };
}

/**
 * Nest's logger while the application is being made, before `app.useLogger` hands Nest the one
 * `loggingModule` provides: nestjs-pino's own, over the same pino logger, so even a failed start
 * (Redis unreachable, say) is logged as the same JSON lines at the configured level, never in
 * Nest's coloured default format.
 */
export function bootLogger(logger: Logger): LoggerService {
  const params = { pinoHttp: { logger } };
  return new NestPinoLogger(new PinoLogger(params), params);
}

/** The process's pino logger, for `app.get(PINO_LOGGER)` and injection. */
export const PINO_LOGGER = Symbol('PINO_LOGGER');

@Module({})
export class LoggingModule {}

/**
 * The process's logger (`createLogger`) as `PINO_LOGGER`, and nestjs-pino over it, so Nest's own
 * `Logger` writes through it too (nestjs-pino's HTTP middleware is left out: see `httpLogging`).
 */
export function loggingModule(logger: Logger): DynamicModule {
  return {
    module: LoggingModule,
    global: true,
    imports: [LoggerModule.forRoot({ pinoHttp: { logger }, forRoutes: [] })],
    providers: [{ provide: PINO_LOGGER, useValue: logger }],
    exports: [PINO_LOGGER, LoggerModule],
  };
}
