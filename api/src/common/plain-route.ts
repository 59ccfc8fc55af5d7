import {
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { type NestExpressApplication } from '@nestjs/platform-express';
import { type Application } from 'express';
import { type Logger as PinoInstance } from 'pino';
import { BODY_LIMIT_BYTES } from './body-validation.pipe';
import { httpErrorAnswer } from './http-exception.filter';
import { JSON_BODY_MEDIA } from './json-body';
import { type IdentifiedRequest, PINO_LOGGER, requestLogging } from './logging';
import { API_CACHE_CONTROL, securityHeadersOfMiddleware } from './security-headers';

/** The JSON bodies Express's parser reads as they are: no other charset, no content coding. */
const PLAIN_JSON = new RegExp(
  `^${JSON_BODY_MEDIA}\\s*(?:;\\s*charset\\s*=\\s*(?:utf-8|"utf-8")\\s*)?$`,
  'i',
);
const DIGITS = /^\d+$/;

/** Express's ETag function (`app.get('etag fn')`), so answers carry the same ETag as `res.json`'s. */
type ETagFunction = (body: string, encoding: BufferEncoding) => string | undefined;

/** A route's answer: its status and JSON body. */
export interface PlainAnswer {
  status: number;
  body: object;
}

/**
 * A route answered on the HTTP server ahead of Express, for a call every connect or reconnect
 * makes: no Express router, no helmet per request, no Nest guard, pipes or filter. It must answer
 * exactly as its Nest route does (same request id and logging, security headers, texts, budget
 * and answers, ETag included); `PlainRoutes` does what they all share.
 */
export interface PlainRoute {
  /**
   * The path's parameter (the room id) of a request this route answers exactly as the Nest route
   * would, or `null` to leave it to Express.
   */
  match(request: IncomingMessage): string | null;
  /** The answer to `request` with its body read; throws what the Nest route would answer. */
  handle(request: IncomingMessage, param: string, body: Buffer): Promise<PlainAnswer>;
}

/** The request's single path segment after `prefix` and before `suffix`, decoded, or `null`. */
export function pathParam(request: IncomingMessage, prefix: string, suffix = ''): string | null {
  const url = request.url ?? '';
  if (request.method !== 'POST' || !url.startsWith(prefix) || !url.endsWith(suffix)) return null;
  const segment = url.slice(prefix.length, url.length - suffix.length);
  if (segment === '' || segment.includes('/') || segment.includes('?')) return null;
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/**
 * Whether Express's JSON parser reads `request`'s body as it is: none at all, or one declared by
 * a `Content-Length` within the limit, not chunked, with no content coding, of a type read as
 * JSON (`isJsonBodyType`) in UTF-8. Any other body is left to Express, whose body parser and
 * `unsupportedBodies` answer each such case their own way.
 */
export function hasPlainBody(request: IncomingMessage): boolean {
  const { headers } = request;
  if (headers['transfer-encoding'] !== undefined) return false;
  const length = headers['content-length'];
  if (length === undefined || length === '0') return true;
  if (!DIGITS.test(length) || Number(length) > BODY_LIMIT_BYTES) return false;
  const coding = headers['content-encoding'];
  if (coding !== undefined && coding.toLowerCase() !== 'identity') return false;
  const type = headers['content-type'];
  return type !== undefined && PLAIN_JSON.test(type);
}

/**
 * Answers `PlainRoute`s on the application's HTTP server ahead of Express: tags the request (id,
 * logging), reads its body, and writes the route's answer, or its exception as Nest's filter
 * would, as Express's `res.json` does with the security headers. Every other request goes on to
 * Express.
 */
@Injectable()
export class PlainRoutes {
  private readonly logger = new Logger('Http');
  private readonly tagRequest: (request: IdentifiedRequest, response: ServerResponse) => void;
  private readonly securityHeaders = securityHeadersOfMiddleware().flat();
  private etag: ETagFunction | undefined;

  constructor(@Inject(PINO_LOGGER) pino: PinoInstance) {
    this.tagRequest = requestLogging(pino);
  }

  /** Answers `routes` on `app`'s HTTP server; every other request goes on to Express. */
  mount(app: NestExpressApplication, routes: readonly PlainRoute[]): void {
    if (routes.length === 0) return;
    const server: Server = app.getHttpServer();
    const express = app.getHttpAdapter().getInstance() as Application;
    this.etag = express.get('etag fn') as ETagFunction | undefined;
    const rest = server.listeners('request') as RequestListener[];
    server.removeAllListeners('request');
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      for (const route of routes) {
        const param = route.match(request);
        if (param !== null) return this.answer(route, request, response, param);
      }
      for (const listener of rest) listener.call(server, request, response);
    });
  }

  private answer(
    route: PlainRoute,
    request: IdentifiedRequest,
    response: ServerResponse,
    param: string,
  ): void {
    this.tagRequest(request, response);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('error', () => response.destroy());
    request.once('end', () => {
      route.handle(request, param, Buffer.concat(chunks)).then(
        ({ status, body }) => this.send(response, status, body),
        (exception: unknown) => {
          const { status, body } = httpErrorAnswer(exception, request.id, this.logger);
          // A 429's `Retry-After` (`RateLimitedException`), as the throttle guard sets it.
          const retryAfter = (exception as { retryAfter?: unknown } | null)?.retryAfter;
          this.send(
            response,
            status,
            body,
            typeof retryAfter === 'string' ? retryAfter : undefined,
          );
        },
      );
    });
  }

  /** Writes a JSON answer as Express's `res.json` does, with the security headers. */
  private send(response: ServerResponse, status: number, body: object, retryAfter?: string): void {
    const json = JSON.stringify(body);
    const headers = [...this.securityHeaders, 'Cache-Control', API_CACHE_CONTROL];
    if (retryAfter !== undefined) headers.push('Retry-After', retryAfter);
    headers.push('Content-Type', 'application/json; charset=utf-8');
    headers.push('Content-Length', String(Buffer.byteLength(json)));
    const etag = this.etag?.(json, 'utf8');
    if (etag !== undefined) headers.push('ETag', etag);
    response.writeHead(status, headers);
    response.end(json);
  }
}
