// The HTTP calls of a `Member` (member.js), with no state of their own: credentials with bounded,
// jittered backoff, and the socket's path (with a single-use ticket when SOCKET_AUTH=ticket).
// Calls are tagged by route, never room id.
import http from 'k6/http';
import { ApiPath } from './protocol.js';
import { BASE_URL, SOCKET_AUTH, TICKET_CALL, TIMING } from './config.js';
import { jittered, metrics, parseJson, sleep } from './run.js';

/**
 * POST `path` with `params`: the response (status 0 when none came: k6 resolves, never rejects)
 * and, as `value`, the string `field` of its JSON when the status is `ok`, else null.
 */
async function post(path, body, params, ok, field) {
  const res = await http.asyncRequest('POST', BASE_URL + path, body, { ...params, timeout: '10s' });
  const value = res.status === ok ? parseJson(res.body)?.[field] : null;
  return { res, value: typeof value === 'string' ? value : null };
}

/**
 * A room token for `name` in `room`, or null: a 400 at once, anything else after
 * `TIMING.credentialAttempts` calls, backing off 1, 2, 4 … s (± 20 %; `Retry-After` on a 429).
 * Every failed call counts in chat_credential_failures, tagged with its status.
 */
export async function credentials(room, name) {
  const body = JSON.stringify({ sender_id: name });
  const headers = { 'Content-Type': 'application/json' };
  const params = { headers, tags: { name: 'POST /api/room/:room_id' } };
  for (let attempt = 1; attempt <= TIMING.credentialAttempts; attempt += 1) {
    const { res, value } = await post(ApiPath.roomCredentials(room), body, params, 200, 'token');
    if (value !== null) return value;
    metrics.credentialFailures.add(1, { status: String(res.status) });
    if (res.status === 400) {
      console.error(`credentials for ${name} in ${room}: 400 ${res.body}`);
      return null;
    }
    if (attempt === TIMING.credentialAttempts) break;
    const retryAfter = Number(res.headers['Retry-After']);
    const backoff = TIMING.credentialBackoffMs * 2 ** (attempt - 1);
    await sleep(
      res.status === 429 && retryAfter > 0
        ? retryAfter * 1000 * (1 + Math.random() * 0.2)
        : jittered(Math.min(TIMING.credentialBackoffMaxMs, backoff)),
    );
  }
  return null;
}

/**
 * The `path` to open a socket of `room` with: the token in it, or (SOCKET_AUTH=ticket) a new
 * single-use ticket; null when the ticket call failed (chat_ticket_failures, by `status`).
 */
export async function socketPath(room, token) {
  if (SOCKET_AUTH === 'token') return { path: ApiPath.roomSocket(room, token) };
  const params = { headers: { Authorization: `Bearer ${token}` }, tags: { name: TICKET_CALL } };
  const { res, value } = await post(ApiPath.roomTicket(room), null, params, 201, 'ticket');
  if (value !== null) return { path: ApiPath.roomSocketWithTicket(room, value) };
  metrics.ticketFailures.add(1, { status: String(res.status) });
  return { path: null, status: res.status };
}
