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
import { httpErrorAnswer } from './http-exception.filter';
import { jsonBodyReader } from './json-body';
import { type IdentifiedRequest, PINO_LOGGER, requestLogging } from './logging';
import { API_CACHE_CONTROL, securityHeadersOfMiddleware } from './security-headers';

/** Express's ETag function (`app.get('etag fn')`), so answers carry the same ETag as `res.json`'s. */
type ETagFunction = (body: string, encoding: BufferEncoding) => string | undefined;

/** A route's answer: its status and JSON body. */
export interface PlainAnswer {
  status: number;
  body: object;
}

/**
 * An API route answered on the HTTP server ahead of Express, for a call every connect or
 * reconnect makes: no Express router, no helmet per request, no Nest guard, pipes or filter. It
 * is the route's only definition (no Nest controller has it): its handler does the route's checks
 * in the order of `protocol/README.md` §2.1 (the body is read first, by `PlainRoutes`, as every
 * route's is); `PlainRoutes` writes its answers with the headers every API answer carries.
 */
export interface PlainRoute {
  /** The route's `POST` path: `prefix`, one parameter, `suffix` (lower case). */
  readonly prefix: string;
  readonly suffix: string;
  /**
   * The answer to `request`, whose path parameter (decoded) and body (parsed; `undefined` when it
   * has none) are given; throws the HTTP error to answer instead.
   */
  handle(request: IncomingMessage, param: string, body: unknown): Promise<PlainAnswer>;
}

/**
 * The decoded parameter of a `POST` to `route`'s path, matched as Express's router would (a
 * trailing `/` and a query string allowed, case-insensitive), or `null`. A parameter that does not
 * decode is `null` too: it is left to Express's middleware (`undecodableRoomIds`).
 */
export function pathParam(
  request: IncomingMessage,
  { prefix, suffix }: Pick<PlainRoute, 'prefix' | 'suffix'>,
): string | null {
  if (request.method !== 'POST') return null;
  const url = request.url ?? '';
  const query = url.indexOf('?');
  let path = query === -1 ? url : url.slice(0, query);
  if (path.endsWith('/')) path = path.slice(0, -1);
  const folded = path.toLowerCase();
  if (!folded.startsWith(prefix) || !folded.endsWith(suffix)) return null;
  const segment = path.slice(prefix.length, path.length - suffix.length);
  if (segment === '' || segment.includes('/')) return null;
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
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
  private readonly readBody = jsonBodyReader();
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
        const param = pathParam(request, route);
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
    this.readBody(request, response)
      .then((body) => route.handle(request, param, body))
      .then(
        ({ status, body }) => this.send(response, status, body),
        (exception: unknown) => {
          const { status, body, retryAfter } = httpErrorAnswer(exception, request.id, this.logger);
          this.send(response, status, body, retryAfter);
        },
      );
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
