import { BadRequestException } from '@nestjs/common';
import { BODY_NOT_JSON_MESSAGE, BODY_NOT_OBJECT_MESSAGE } from '@taco/protocol';
import { type ErrorRequestHandler } from 'express';

const BYTE_ORDER_MARK = '\uFEFF';

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
