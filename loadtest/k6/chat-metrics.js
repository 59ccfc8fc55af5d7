// The metrics every script records under the same names (their meaning: loadtest/README.md,
// "Metrics and thresholds"), the options and thresholds every script has, and the checks of a
// finished member.
import { check } from 'k6';
import { Counter, Trend } from 'k6/metrics';
import { SLO, SOCKET_AUTH, TICKET_CALL } from './config.js';

export const metrics = {
  sent: new Counter('chat_messages_sent'),
  received: new Counter('chat_messages_received'),
  lost: new Counter('chat_messages_lost'),
  duplicated: new Counter('chat_messages_duplicated'),
  recovered: new Counter('chat_messages_recovered'),
  epochChanges: new Counter('chat_epoch_changes'),
  deliveryLatency: new Trend('chat_delivery_latency', true),
  connectLatency: new Trend('chat_connect_latency', true),
  errorFrames: new Counter('chat_error_frames'),
  unexpectedCloses: new Counter('chat_unexpected_closes'),
  reconnects: new Counter('chat_reconnects'),
  credentialFailures: new Counter('chat_credential_failures'),
  ticketFailures: new Counter('chat_ticket_failures'),
  heartbeatRtt: new Trend('chat_heartbeat_rtt', true),
  heartbeatsMissed: new Counter('chat_heartbeats_missed'),
};

/**
 * A script's options: its one scenario, `name`, and the thresholds every script has (a failed one
 * makes k6 exit non-zero) with `extraThresholds` added.
 */
export function scriptOptions(name, scenario, extraThresholds) {
  return {
    summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'count'],
    // Every system tag except `url`: socket URLs carry the room token, which must not land in
    // metrics outputs (and would give every socket its own time series).
    systemTags: (
      'proto subproto status method name group check error error_code tls_version scenario ' +
      'service expected_response'
    ).split(' '),
    setupTimeout: '30s',
    scenarios: { [name]: scenario },
    thresholds: {
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
      ...extraThresholds,
    },
  };
}

/** One iteration per VU, stopped after `maxMs` (fanout.js, soak.js). */
export const oncePerVu = (vus, maxMs) => ({
  executor: 'per-vu-iterations',
  vus,
  iterations: 1,
  maxDuration: `${Math.ceil(maxMs / 1000)}s`,
  gracefulStop: '10s',
});

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
