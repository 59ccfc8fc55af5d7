import {
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { BadRequestException, ConflictException, Inject, Injectable, Logger } from '@nestjs/common';
import { type NestExpressApplication } from '@nestjs/platform-express';
import {
  API_PREFIX,
  type ApiErrorBody,
  BODY_NOT_OBJECT_MESSAGE,
  NAME_TAKEN_MESSAGE,
  normalizeUserName,
  type RoomCredentialsResponse,
  validateRoomName,
  validateUserName,
} from '@taco/protocol';
import { type Application } from 'express';
import { type Logger as PinoInstance } from 'pino';
import { BODY_LIMIT_BYTES } from '../common/body-validation.pipe';
import { httpErrorAnswer } from '../common/http-exception.filter';
import { parseJsonBody } from '../common/json-body';
import { type IdentifiedRequest, PINO_LOGGER, requestLogging } from '../common/logging';
import { securityHeadersOfMiddleware } from '../common/security-headers';
import { credentialsNameField } from './dto/room-credentials.dto';
import { CredentialsThrottleGuard, RateLimitedException } from './ip-throttle.guard';
import { RoomsService } from './rooms.service';

const PATH_PREFIX = `${API_PREFIX}/room/`;
/** The JSON bodies Express's parser reads as they are: no other charset, no content coding. */
const PLAIN_JSON = /^application\/json\s*(?:;\s*charset\s*=\s*(?:utf-8|"utf-8")\s*)?$/i;
const DIGITS = /^\d+$/;

/** Express's ETag function (`app.get('etag fn')`), so answers carry the same ETag as `res.json`'s. */
type ETagFunction = (body: string, encoding: BufferEncoding) => string | undefined;

/**
 * The room id of a `POST /api/room/:room_id` this route answers exactly as the Nest route would,
 * or `null` to leave the request to Express: a single path segment that decodes, and a body
 * declared as plain JSON (UTF-8, no content coding) by a `Content-Length` within the limit. Any
 * other request (chunked, compressed, another charset or type, too large, a query string) takes
 * the Nest route, whose body parser answers each such case its own way.
 */
function plainCredentialsRoom(request: IncomingMessage): string | null {
  const url = request.url ?? '';
  if (request.method !== 'POST' || !url.startsWith(PATH_PREFIX)) return null;
  const segment = url.slice(PATH_PREFIX.length);
  if (segment === '' || segment.includes('/') || segment.includes('?')) return null;
  const { headers } = request;
  const length = headers['content-length'];
  if (length === undefined || !DIGITS.test(length) || Number(length) > BODY_LIMIT_BYTES)
    return null;
  if (headers['transfer-encoding'] !== undefined) return null;
  const coding = headers['content-encoding'];
  if (coding !== undefined && coding.toLowerCase() !== 'identity') return null;
  if (!PLAIN_JSON.test(headers['content-type'] ?? '')) return null;
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/**
 * `POST /api/room/:room_id` answered on the HTTP server ahead of Express, the connect path's
 * costliest step otherwise (Express's router, helmet per request, Nest's guard, pipes and
 * filter). Same contract as `RoomsController.credentials`: the same request id and logging,
 * security headers, validation and texts, per-IP budget, name check and answers, ETag included.
 * The budget and the name check go to Redis together, in one round trip.
 */
@Injectable()
export class CredentialsRoute {
  private readonly logger = new Logger('Http');
  private readonly tagRequest: (request: IdentifiedRequest, response: ServerResponse) => void;
  private readonly securityHeaders = securityHeadersOfMiddleware().flat();
  private etag: ETagFunction | undefined;

  constructor(
    private readonly rooms: RoomsService,
    private readonly throttle: CredentialsThrottleGuard,
    @Inject(PINO_LOGGER) pino: PinoInstance,
  ) {
    this.tagRequest = requestLogging(pino);
  }

  /** Answers the route on `app`'s HTTP server; every other request goes on to Express. */
  mount(app: NestExpressApplication): void {
    const server: Server = app.getHttpServer();
    const express = app.getHttpAdapter().getInstance() as Application;
    this.etag = express.get('etag fn') as ETagFunction | undefined;
    const rest = server.listeners('request') as RequestListener[];
    server.removeAllListeners('request');
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const room = plainCredentialsRoom(request);
      if (room !== null) this.answer(request, response, room);
      else for (const listener of rest) listener.call(server, request, response);
    });
  }

  private answer(request: IdentifiedRequest, response: ServerResponse, room: string): void {
    this.tagRequest(request, response);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('error', () => response.destroy());
    request.once('end', () => {
      this.credentials(request, room, Buffer.concat(chunks)).then(
        (answer) => this.send(response, 200, answer),
        (exception: unknown) => {
          const { status, body } = httpErrorAnswer(exception, request.id, this.logger);
          const retryAfter =
            exception instanceof RateLimitedException ? exception.retryAfter : undefined;
          this.send(response, status, body, retryAfter);
        },
      );
    });
  }

  /**
   * The Nest route's steps in its order of answers: a malformed body (parsed before its guard),
   * the budget (its guard), the room id (its path pipe), the body (its validation pipe), the
   * name check. Only the budget and the name check need Redis, so they are sent together.
   */
  private async credentials(
    request: IncomingMessage,
    room: string,
    raw: Buffer,
  ): Promise<RoomCredentialsResponse> {
    const body = parseJsonBody(raw);
    let problem: string | null = validateRoomName(room);
    let name: string | null = null;
    if (problem === null && Array.isArray(body)) problem = BODY_NOT_OBJECT_MESSAGE;
    if (problem === null) {
      const fields = body as Partial<Record<'sender_id' | 'sender', unknown>>;
      const given = fields[credentialsNameField(fields)];
      problem = validateUserName(given);
      if (problem === null) name = normalizeUserName(given as string);
    }
    const [refusal, taken] = await Promise.allSettled([
      this.throttle.take(request),
      name === null ? false : this.rooms.isTaken(room, name),
    ]);
    if (refusal.status === 'rejected') throw refusal.reason;
    if (refusal.value !== null) throw refusal.value;
    if (problem !== null || name === null) throw new BadRequestException([problem]);
    if (taken.status === 'rejected') throw taken.reason;
    if (taken.value) throw new ConflictException(NAME_TAKEN_MESSAGE);
    const { token } = this.rooms.credentials(room, name);
    return { room_id: room, sender_id: name, token };
  }

  /** Writes a JSON answer as Express's `res.json` does, with the security headers. */
  private send(
    response: ServerResponse,
    status: number,
    body: RoomCredentialsResponse | ApiErrorBody,
    retryAfter?: string,
  ): void {
    const json = JSON.stringify(body);
    const headers = [...this.securityHeaders];
    if (retryAfter !== undefined) headers.push('Retry-After', retryAfter);
    headers.push('Content-Type', 'application/json; charset=utf-8');
    headers.push('Content-Length', String(Buffer.byteLength(json)));
    const etag = this.etag?.(json, 'utf8');
    if (etag !== undefined) headers.push('ETag', etag);
    response.writeHead(status, headers);
    response.end(json);
  }
}
