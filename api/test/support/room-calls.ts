import { rawRequest, type RawResponse } from '@taco/harness';
import { ApiPath } from '@taco/protocol';
import { STATUS_CODES } from 'node:http';
import { parsePrometheusText } from './prometheus-text';
import { type TestApp } from './test-app';

/**
 * Requests and expected answers for the tests of `POST /api/room/:room_id` and
 * `POST /api/room/:room_id/ticket`, the calls every connect and reconnect makes, answered ahead
 * of Express by their only definitions (`CredentialsRoute`, `TicketRoute`): every answer, header
 * and budget of protocol/README.md §2.1–§2.4 for them.
 */

export interface RawRequest {
  path: string;
  body?: string | Buffer;
  /** Headers beside the defaults; `undefined` leaves a default header out. */
  headers?: Record<string, string | undefined>;
  /** Sent with `Transfer-Encoding: chunked` instead of a `Content-Length`. */
  chunked?: boolean;
}

/** A POST exactly as given: the test decides every header, the length and the body's bytes. */
export function send(t: TestApp, { path, body = '', headers = {}, chunked = false }: RawRequest) {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return rawRequest(`${t.baseUrl}${path}`, {
    method: 'POST',
    headers: Object.fromEntries(
      Object.entries({
        'content-type': 'application/json',
        ...(chunked ? {} : { 'content-length': String(bytes.length) }),
        ...headers,
      }).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
    body: bytes,
  });
}

export const bodyOf = (answer: RawResponse) => JSON.parse(answer.body.toString('utf8')) as unknown;

export const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;

/** An expected answer: its status and JSON body. */
export interface Expected {
  status: number;
  body: unknown;
}

/** The error answer of §2.1 for `status` with `message`. */
export const refused = (status: number, message: string | string[]): Expected => ({
  status,
  body: { statusCode: status, error: STATUS_CODES[status], message },
});

/** A 400 with these validation texts. */
export const invalid = (...messages: string[]) => refused(400, messages);

export const json = (value: unknown) => JSON.stringify(value);

/** A JSON credentials body of exactly `bytes` bytes. */
export const bodyOfLength = (bytes: number) => {
  const shell = json({ sender_id: 'Ann', pad: '' });
  return json({ sender_id: 'Ann', pad: 'p'.repeat(bytes - shell.length) });
};

/** `taco_http_rate_limited_total` as the app's metrics endpoint reports it. */
export async function rateLimitedCount(t: TestApp): Promise<number | undefined> {
  const text = await (await fetch(`${t.baseUrl}${ApiPath.metrics}`)).text();
  return parsePrometheusText(text).get('taco_http_rate_limited_total')?.samples[0]?.value;
}

export const path = ApiPath.roomCredentials('teal-otter');

/** A credentials call with these JSON fields (or this raw body), and more of the request. */
export const named = (fields: object | string, more: Partial<RawRequest> = {}): RawRequest => ({
  path,
  body: typeof fields === 'string' ? fields : json(fields),
  ...more,
});
export const asAnn = { sender_id: 'Ann' };
export const typed = (type: string | undefined) => ({ headers: { 'content-type': type } });
export const coded = (coding: string) => ({ headers: { 'content-encoding': coding } });

/** A credentials call for the room id written as it goes in the path. */
export const atRoom = (id: string, body = json({ sender_id: 'Kim' })): RawRequest => ({
  path: `/api/room/${id}`,
  body,
});

export const ticketPath = ApiPath.roomTicket('teal-otter');

/** A ticket call: `authorization` makes the header from a valid token of the app's. */
export interface TicketCall extends Partial<RawRequest> {
  authorization?: (token: string) => string;
}

export async function askTicket(t: TestApp, call: TicketCall, token?: string) {
  const own = token ?? (await t.token('teal-otter', 'Ann'));
  const { authorization, path: callPath = ticketPath, headers = {}, body, chunked } = call;
  const auth = authorization === undefined ? {} : { authorization: authorization(own) };
  // No body and no Content-Length unless the call has one, as a browser's fetch sends it.
  const none = body === undefined && !chunked;
  return send(t, {
    path: callPath,
    body,
    chunked,
    headers: {
      ...(none ? { 'content-type': undefined, 'content-length': undefined } : {}),
      ...auth,
      ...headers,
    },
  });
}

export const bearer = (token: string) => `Bearer ${token}`;
/** A ticket call with a valid token, and more of the request. */
export const held = (more: TicketCall = {}): TicketCall => ({ authorization: bearer, ...more });
/** A ticket call with a valid token to the room id written as it goes in the path. */
export const heldAt = (id: string) => held({ path: `/api/room/${id}/ticket` });
