// The metrics every script records under the same names, the thresholds every script has, the
// checks of a finished member, and the options every script shares.
import { check } from 'k6';
import { Counter, Trend } from 'k6/metrics';
import { SLO, SOCKET_AUTH, TICKET_CALL } from './config.js';

export const metrics = {
  /** Message frames sent. */
  sent: new Counter('chat_messages_sent'),
  /** Messages delivered live (each copy to each member counts once), tagged from:self|others. */
  received: new Counter('chat_messages_received'),
  /** Expected deliveries that never arrived by the end of the member's session (see Member). */
  lost: new Counter('chat_messages_lost'),
  /** The same seq delivered live twice to one member. */
  duplicated: new Counter('chat_messages_duplicated'),
  /** Messages missed while reconnecting and fetched with history `after` the last seq. */
  recovered: new Counter('chat_messages_recovered'),
  /** Times a member saw its room's sequence start again (a new `epoch`); see Member. */
  epochChanges: new Counter('chat_epoch_changes'),
  /** Sender's send → a member's receipt, from the send time in the body. */
  deliveryLatency: new Trend('chat_delivery_latency', true),
  /** Opening the socket → the room is loaded (own presence and the history reply arrived). */
  connectLatency: new Trend('chat_connect_latency', true),
  /** Error frames (type 7), tagged with their code. */
  errorFrames: new Counter('chat_error_frames'),
  /** Sockets closed by anyone but this script (or that never opened), tagged with the code. */
  unexpectedCloses: new Counter('chat_unexpected_closes'),
  /** Reconnects started after an unexpected close. */
  reconnects: new Counter('chat_reconnects'),
  /** Credential calls that did not answer 200, tagged with the status. */
  credentialFailures: new Counter('chat_credential_failures'),
  /** Ticket calls (`SOCKET_AUTH=ticket`) that did not answer 201, tagged with the status. */
  ticketFailures: new Counter('chat_ticket_failures'),
  /** Heartbeat (frame 6) round trip. */
  heartbeatRtt: new Trend('chat_heartbeat_rtt', true),
  /** Heartbeats with no reply by the time the next one was due. */
  heartbeatsMissed: new Counter('chat_heartbeats_missed'),
};

/** The thresholds every script has; a failed one makes k6 exit non-zero. */
export function commonThresholds(extra = {}) {
  return {
    chat_messages_lost: ['count==0'],
    chat_messages_received: ['count>0'],
    chat_messages_duplicated: ['count==0'],
    chat_delivery_latency: [`p(95)<${SLO.p95Ms}`, `p(99)<${SLO.p99Ms}`],
    chat_connect_latency: [`p(95)<${SLO.connectP95Ms}`, `p(99)<${SLO.connectP99Ms}`],
    chat_error_frames: ['count==0'],
    // Listed on its own so a rate-limited run says so by name in the summary.
    'chat_error_frames{code:rate_limited}': ['count==0'],
    chat_unexpected_closes: ['count==0'],
    chat_credential_failures: ['count==0'],
    chat_ticket_failures: ['count==0'],
    // With tickets, every socket opened with one (so the summary shows how many calls).
    ...(SOCKET_AUTH === 'ticket' ? { [`http_reqs{name:${TICKET_CALL}}`]: ['count>0'] } : {}),
    checks: ['rate>0.99'],
    ...extra,
  };
}

/** Options every script shares. */
export const COMMON_OPTIONS = {
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'count'],
  // Every system tag except `url`: socket URLs carry the room token, which must not land in
  // metrics outputs (and would give every socket its own time series).
  systemTags: (
    'proto subproto status method name group check error error_code tls_version scenario ' +
    'service expected_response'
  ).split(' '),
  setupTimeout: '30s',
};

/** Records the usual checks of a finished member (the result of Member.finish()). */
export function checkSession(prefix, result) {
  check(result, {
    [`${prefix}: joined the room`]: (r) => r.joined,
    [`${prefix}: every own message came back`]: (r) => !r.joined || r.unechoed === 0,
    [`${prefix}: every message in the window arrived`]: (r) => !r.joined || r.missing === 0,
  });
  if (result.joined && result.othersInWindow > 0) {
    check(result, {
      [`${prefix}: received the other members' messages`]: (r) => r.fromOthers === r.othersInWindow,
    });
  }
}
