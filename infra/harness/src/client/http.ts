/**
 * The HTTP layer of the reference client: credentials (protocol/README.md §2.3) and single-use
 * tickets (§2.4). `node:http` on kept-alive connections rather than `fetch`: on Node 20, undici's
 * fetch spends several times the CPU of the request the server answers (loadtest/README.md,
 * "Connect cost"), on the same cores as the servers under test.
 */
import { Agent, request } from 'node:http';
import { ApiPath, type RoomCredentialsResponse, type RoomTicketResponse } from '@taco/protocol';

const HTTP_TIMEOUT_MS = 30_000;
const agent = new Agent({ keepAlive: true });

/** A POST with a JSON body (or none): the status and the answer's text. */
export function httpPost(
  url: string,
  body: object | undefined,
  headers: Record<string, string> = {},
  timeoutMs = HTTP_TIMEOUT_MS,
): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? '' : JSON.stringify(body);
  const typed = body === undefined ? {} : { 'content-type': 'application/json' };
  return new Promise((resolve, reject) => {
    const call = request(
      url,
      {
        method: 'POST',
        agent,
        timeout: timeoutMs,
        headers: { ...typed, 'content-length': Buffer.byteLength(payload), ...headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.once('error', reject);
        response.once('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    call.once('timeout', () => call.destroy(new Error(`${url}: no answer in ${timeoutMs} ms`)));
    call.once('error', reject);
    call.end(payload);
  });
}

/** `POST /api/room/:room_id` through `baseUrl`: a token for `name` in `room`. */
export async function credentials(
  baseUrl: string,
  room: string,
  name: string,
  timeoutMs?: number,
): Promise<string> {
  const url = `${baseUrl}${ApiPath.roomCredentials(room)}`;
  const { status, text } = await httpPost(url, { sender_id: name }, {}, timeoutMs);
  if (status !== 200) throw new Error(`credentials for ${name}: HTTP ${status} ${text}`);
  return (JSON.parse(text) as RoomCredentialsResponse).token;
}

/** `POST /api/room/:room_id/ticket`: a single-use socket ticket, or `null` on 401. */
export async function ticket(baseUrl: string, room: string, token: string): Promise<string | null> {
  const url = `${baseUrl}${ApiPath.roomTicket(room)}`;
  const { status, text } = await httpPost(url, undefined, { authorization: `Bearer ${token}` });
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
