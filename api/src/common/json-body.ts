import { type IncomingMessage, type ServerResponse } from 'node:http';
import {
  BadRequestException,
  type HttpException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import {
  API_PREFIX,
  BODY_NOT_JSON_MESSAGE,
  BODY_NOT_JSON_TYPE_MESSAGE,
  BODY_NOT_OBJECT_MESSAGE,
} from '@taco/protocol';
import { type ErrorRequestHandler, json, type Request, type RequestHandler } from 'express';
import { BODY_LIMIT_BYTES } from './body-validation.pipe';

/**
 * The media types a body is read as JSON under: JSON's own, `application/json` and any
 * `application/*+json`. Every other body, an untyped one included, is refused with a 415
 * (`unsupportedBodies`): the types a foreign page may send without a CORS preflight
 * (`text/plain`, `application/x-www-form-urlencoded`, `multipart/form-data`) never reach a
 * route, so another site cannot spend a visitor's credential budget.
 */
const JSON_BODY_TYPE = /^application\/(?:json|[\w.+-]*\+json)\s*(?:;|$)/i;

/** Whether a body of this `Content-Type` (`undefined`: none given) is read as JSON. */
export function isJsonBodyType(type: string | undefined): boolean {
  return type !== undefined && JSON_BODY_TYPE.test(type);
}

/** The JSON body parser's `type` test: the request's body is read as JSON (`isJsonBodyType`). */
const readsJsonBody = (request: IncomingMessage): boolean =>
  isJsonBodyType(request.headers['content-type']);

/**
 * The API's body parser (Express's own, strict): a body typed as JSON (`isJsonBodyType`) of at
 * most `BODY_LIMIT_BYTES` (else 413), in a UTF charset (else 415), decompressed if it says so;
 * empty reads as `{}`, a leading byte order mark is dropped.
 */
export function jsonBodyParser(): RequestHandler {
  return json({ limit: BODY_LIMIT_BYTES, type: readsJsonBody });
}

/** Whether a request declares a body: a length above zero, or a chunked one. */
function hasBody(request: IncomingMessage): boolean {
  const { headers } = request;
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * The 415 saying what to send for a request whose body is not typed as JSON
 * (`isJsonBodyType`), instead of leaving it unread and its fields taken for missing.
 */
function unsupportedBody(request: IncomingMessage): HttpException | undefined {
  return hasBody(request) && !readsJsonBody(request)
    ? new UnsupportedMediaTypeException([BODY_NOT_JSON_TYPE_MESSAGE])
    : undefined;
}

/** Refuses an API request whose body is not typed as JSON with `unsupportedBody`'s 415. */
export function unsupportedBodies(): RequestHandler {
  return (request, _response, next) => {
    next(request.path.startsWith(`${API_PREFIX}/`) ? unsupportedBody(request) : undefined);
  };
}

/** The 400 for a body that is not JSON, or JSON but neither an object nor an array. */
function unreadableBody(text: string): BadRequestException {
  try {
    JSON.parse(text);
  } catch {
    return new BadRequestException([BODY_NOT_JSON_MESSAGE]);
  }
  return new BadRequestException([BODY_NOT_OBJECT_MESSAGE]);
}

/** What body-parser's JSON parser throws for a body it cannot take. */
interface ParseFailure {
  type: 'entity.parse.failed';
  body: string;
}

function isParseFailure(error: unknown): error is ParseFailure {
  if (typeof error !== 'object' || error === null) return false;
  const { type, body } = error as Partial<Record<keyof ParseFailure, unknown>>;
  return type === 'entity.parse.failed' && typeof body === 'string';
}

/**
 * The body parser's refusal as answered: a body it cannot parse as the protocol's 400 instead of
 * the parser's own wording (`Unexpected end of JSON input`), any other (413, 415) as it is.
 */
function bodyRefusal<E>(error: E): E | BadRequestException {
  return isParseFailure(error) ? unreadableBody(error.body) : error;
}

/** Express error middleware for the body parser's refusals (`bodyRefusal`). */
export function jsonParseErrors(): ErrorRequestHandler {
  return (error: unknown, _request, _response, next) => {
    next(bodyRefusal(error));
  };
}

/**
 * A reader of an API request's body for a route answered without Express: the same steps as
 * Express's (`jsonBodyParser`, `jsonParseErrors`, `unsupportedBodies`), resolving to the parsed
 * body (`undefined` when there is none) or rejecting with what to answer.
 */
export function jsonBodyReader(): (
  request: IncomingMessage,
  response: ServerResponse,
) => Promise<unknown> {
  const parse = jsonBodyParser();
  return (request, response) =>
    new Promise((resolve, reject) => {
      const read = request as Request;
      parse(read, response as never, (error?: unknown) => {
        // body-parser's refusals are `http-errors` errors.
        if (error !== undefined) return reject(bodyRefusal(error as Error));
        const refused = unsupportedBody(request);
        if (refused !== undefined) return reject(refused);
        resolve(read.body);
      });
    });
}
