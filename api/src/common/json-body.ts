import { type IncomingMessage } from 'node:http';
import { BadRequestException, UnsupportedMediaTypeException } from '@nestjs/common';
import {
  API_PREFIX,
  BODY_NOT_JSON_MESSAGE,
  BODY_NOT_JSON_TYPE_MESSAGE,
  BODY_NOT_OBJECT_MESSAGE,
} from '@taco/protocol';
import { type ErrorRequestHandler, type RequestHandler } from 'express';

const BYTE_ORDER_MARK = '\uFEFF';

/**
 * The media types a body is read as JSON under: JSON's own, `application/json` and any
 * `application/*+json`. Every other body, an untyped one included, is refused with a 415
 * (`unsupportedBodies`): the types a foreign page may send without a CORS preflight
 * (`text/plain`, `application/x-www-form-urlencoded`, `multipart/form-data`) never reach a
 * route, so another site cannot spend a visitor's credential budget.
 */
export const JSON_BODY_MEDIA = 'application/(?:json|[\\w.+-]*\\+json)';
const JSON_BODY_TYPE = new RegExp(`^${JSON_BODY_MEDIA}\\s*(?:;|$)`, 'i');

/** Whether a body of this `Content-Type` (`undefined`: none given) is read as JSON. */
export function isJsonBodyType(type: string | undefined): boolean {
  return type !== undefined && JSON_BODY_TYPE.test(type);
}

/** The JSON body parser's `type` test: the request's body is read as JSON (`isJsonBodyType`). */
export const readsJsonBody = (request: IncomingMessage): boolean =>
  isJsonBodyType(request.headers['content-type']);

/** Whether a request declares a body: a length above zero, or a chunked one. */
function hasBody(request: IncomingMessage): boolean {
  const { headers } = request;
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * Refuses an API request whose body is not typed as JSON (`isJsonBodyType`) with a 415 saying
 * what to send, instead of reading it or letting its fields be taken for missing.
 */
export function unsupportedBodies(): RequestHandler {
  return (request, _response, next) => {
    const refused =
      request.path.startsWith(`${API_PREFIX}/`) && hasBody(request) && !readsJsonBody(request);
    next(refused ? new UnsupportedMediaTypeException([BODY_NOT_JSON_TYPE_MESSAGE]) : undefined);
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

/**
 * A JSON body read as Express's strict parser reads it: a leading byte order mark dropped, empty
 * as `{}`, an object or an array; anything else is a 400 with one of the protocol's texts.
 */
export function parseJsonBody(raw: Buffer): unknown {
  let text = raw.toString('utf8');
  if (text.startsWith(BYTE_ORDER_MARK)) text = text.slice(1);
  if (text.length === 0) return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw unreadableBody(text);
  }
  if (typeof body !== 'object' || body === null) throw unreadableBody(text);
  return body;
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
 * Express error middleware for the JSON parser's refusals: the protocol's text in a 400 instead
 * of the parser's own wording (`Unexpected end of JSON input`), which Nest would pass on.
 */
export function jsonParseErrors(): ErrorRequestHandler {
  return (error: unknown, _request, _response, next) => {
    next(isParseFailure(error) ? unreadableBody(error.body) : error);
  };
}
