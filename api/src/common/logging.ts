import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type DynamicModule, RequestMethod } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { type DestinationStream, type Logger, pino } from 'pino';
import { type Options as HttpLoggerOptions } from 'pino-http';
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

/**
 * HTTP logging: every request has an id (`reqId` on whatever is logged while serving it, and the
 * `X-Request-Id` response header); the line per request is at `debug`, or `error` for a 5xx, so
 * at the usual levels requests cost no log line. What is logged of a request is its method and
 * path: never its query string, headers or body (a token may be in any of them).
 */
function httpLoggerOptions(logger: Logger): HttpLoggerOptions {
  return {
    logger,
    quietReqLogger: true,
    genReqId: requestId,
    customLogLevel: (_request, response, error) =>
      error !== undefined || response.statusCode >= 500 ? 'error' : 'debug',
    serializers: {
      req: (request: { id: unknown; method: string; url: string }) => ({
        id: request.id,
        method: request.method,
        path: request.url.split('?', 1)[0],
      }),
      res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
    },
  };
}

/** nestjs-pino, over the logger above: Nest's own `Logger` writes through it too. */
export function loggingModule(config: AppConfig, destination?: DestinationStream): DynamicModule {
  return LoggerModule.forRoot({
    pinoHttp: httpLoggerOptions(createLogger(config, destination)),
    forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
  });
}
