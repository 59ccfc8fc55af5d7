/**
 * The HTTP layer of the reference client: credentials (protocol/README.md §2.3) and single-use
 * tickets (§2.4). `node:http` on kept-alive connections rather than `fetch`: on Node 20, undici's
 * fetch spends several times the CPU of the request the server answers (loadtest/README.md,
 * "Connect cost"), on the same cores as the servers under test.
 */
import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import { buffer } from 'node:stream/consumers';
import { ApiPath, type RoomCredentialsResponse, type RoomTicketResponse } from '@taco/protocol';

const agent = new Agent({ keepAlive: true });

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as it came over the wire: still compressed when Content-Encoding says so. */
  body: Buffer;
}

/** What `rawRequest` sends besides the URL. */
export interface RawRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as it is, with no header added for it (give `Content-Length` to send one). */
  body?: Buffer | string;
  timeoutMs?: number;
  /** Kept-alive connections (the client's calls); by default a connection of its own. */
  keepAlive?: boolean;
}

/**
 * A request sent as given and an answer kept as received: no header the caller did not write
 * but `Host` and `Connection` (a body without `Content-Length` goes chunked), the bytes as
 * sent (fetch would ask for and undo compression itself).
 */
export function rawRequest(
  url: string,
  { method = 'GET', headers = {}, body, timeoutMs = 10_000, keepAlive }: RawRequestOptions = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    // Without keepAlive a connection of its own: a kept-alive one may lead to a server since gone.
    const call = request(url, { method, headers, agent: keepAlive ? agent : false }, (response) => {
      buffer(response).then(
        (body) => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        reject,
      );
    });
    call.once('error', (error: NodeJS.ErrnoException) => {
      // The server closed an idle kept-alive connection as this request went out on it: the
      // request was never read, so it goes again on a connection of its own (Node's documented
      // answer, `request.reusedSocket`).
      if (call.reusedSocket && error.code === 'ECONNRESET') {
        rawRequest(url, { method, headers, body, timeoutMs }).then(resolve, reject);
      } else {
        reject(error);
      }
    });
    call.setTimeout(timeoutMs, () =>
      call.destroy(new Error(`${url}: no answer in ${timeoutMs} ms`)),
    );
    call.end(body);
  });
}

/** A POST on a kept-alive connection: the status and the answer's text. */
async function post(url: string, headers: Record<string, string>, body = '') {
  const length = String(Buffer.byteLength(body));
  const answer = await rawRequest(url, {
    method: 'POST',
    headers: { 'content-length': length, ...headers },
    body,
    timeoutMs: 30_000,
    keepAlive: true,
  });
  return { status: answer.status, text: answer.body.toString('utf8') };
}

/** `POST /api/room/:room_id` through `baseUrl`: a token for `name` in `room`. */
export async function credentials(baseUrl: string, room: string, name: string): Promise<string> {
  const url = `${baseUrl}${ApiPath.roomCredentials(room)}`;
  const json = { 'content-type': 'application/json' };
  const { status, text } = await post(url, json, JSON.stringify({ sender_id: name }));
  if (status !== 200) throw new Error(`credentials for ${name}: HTTP ${status} ${text}`);
  return (JSON.parse(text) as RoomCredentialsResponse).token;
}

/** `POST /api/room/:room_id/ticket`: a single-use socket ticket, or `null` on 401. */
export async function ticket(baseUrl: string, room: string, token: string): Promise<string | null> {
  const url = `${baseUrl}${ApiPath.roomTicket(room)}`;
  const { status, text } = await post(url, { authorization: `Bearer ${token}` });
  if (status === 401) return null;
  if (status !== 201) throw new Error(`ticket: HTTP ${status} ${text}`);
  return (JSON.parse(text) as RoomTicketResponse).ticket;
}

/** The room socket's URL on `baseUrl` (http or https), opened with a ticket or a token. */
export function socketUrl(
  baseUrl: string,
  room: string,
  with_: { ticket: string } | { token: string },
): string {
  const path =
    'ticket' in with_
      ? ApiPath.roomSocketWithTicket(room, with_.ticket)
      : ApiPath.roomSocket(room, with_.token);
  return `${baseUrl.replace(/^http/, 'ws')}${path}`;
}
