/**
 * `npm run test:load`: every k6 script of loadtest/k6 with PROFILE=smoke, for real, against the
 * no-Docker cluster (redis-server, 3 api replicas, nginx on 127.0.0.1). Each run must pass all of
 * its thresholds (k6 exits 0), lose nothing and deliver something; fan-out must deliver every
 * message to every member exactly. The figures go to the log and to artifacts/k6-smoke.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Cluster, startCluster } from '@taco/harness';
import {
  count,
  failedThresholds,
  findK6,
  type K6Result,
  REPO_ROOT,
  runK6,
  stat,
  tail,
} from './k6-runner';

/** Smoke runs are sized to end within a minute; this bounds each k6 process. */
const K6_TIMEOUT_MS = 150_000;

interface SmokeProfile {
  fanout: { rooms: number; members: number };
}
const workloads = JSON.parse(
  readFileSync(join(REPO_ROOT, 'loadtest', 'workloads', 'workloads.json'), 'utf8'),
) as { k6: { profiles: { smoke: SmokeProfile } } };
const SMOKE = workloads.k6.profiles.smoke;

interface Figures {
  exitCode: number | null;
  sent: number;
  received: number;
  lost: number;
  p95Ms: number | null;
  p99Ms: number | null;
  connectP95Ms: number | null;
  errorFrames: number;
  unexpectedCloses: number;
  failedThresholds: string[];
}

/** Milliseconds to 0.1. */
const ms = (value: number | null) => (value === null ? null : Math.round(value * 10) / 10);

function figures(result: K6Result): Figures {
  const { metrics } = result;
  return {
    exitCode: result.code,
    sent: count(metrics, 'chat_messages_sent'),
    received: count(metrics, 'chat_messages_received'),
    lost: count(metrics, 'chat_messages_lost'),
    p95Ms: ms(stat(metrics, 'chat_delivery_latency', 'p(95)')),
    p99Ms: ms(stat(metrics, 'chat_delivery_latency', 'p(99)')),
    connectP95Ms: ms(stat(metrics, 'chat_connect_latency', 'p(95)')),
    errorFrames: count(metrics, 'chat_error_frames'),
    unexpectedCloses: count(metrics, 'chat_unexpected_closes'),
    failedThresholds: failedThresholds(metrics),
  };
}

describe('the k6 scripts, PROFILE=smoke, against 3 replicas behind nginx', () => {
  let k6: string;
  let cluster: Cluster | undefined;
  const results: Record<string, Figures> = {};

  beforeAll(async () => {
    k6 = findK6();
    cluster = await startCluster({
      replicas: 3,
      // Every VU comes from 127.0.0.1: the per-IP limits are raised, as the README says to do on
      // a deployment under test. Per-connection limits stay at their defaults: the scripts stay
      // within them, and a rate_limited error frame fails the run.
      env: { CREDENTIALS_PER_MINUTE: '100000', CONNECTIONS_PER_IP: '100000', LOG_LEVEL: 'warn' },
    });
  }, 90_000);

  afterAll(async () => {
    await cluster?.stop();
    const lines = Object.entries(results).map(
      ([script, f]) =>
        `${script.padEnd(20)} exit ${f.exitCode}  sent ${f.sent}  received ${f.received}  ` +
        `lost ${f.lost}  p95 ${f.p95Ms} ms  p99 ${f.p99Ms} ms  connect p95 ${f.connectP95Ms} ms`,
    );
    if (lines.length > 0) console.log(`k6 smoke figures\n${lines.join('\n')}`);
    mkdirSync(join(REPO_ROOT, 'artifacts'), { recursive: true });
    writeFileSync(
      join(REPO_ROOT, 'artifacts', 'k6-smoke.json'),
      `${JSON.stringify({ profile: 'smoke', replicas: 3, results }, null, 2)}\n`,
    );
  }, 30_000);

  it.each<[string, string, Record<string, string>]>([
    ['chat.js', 'chat.js', {}],
    ['fanout.js', 'fanout.js', {}],
    ['soak.js', 'soak.js', {}],
    // Every socket with a single-use ticket, as the web client opens them.
    ['chat.js with tickets', 'chat.js', { SOCKET_AUTH: 'ticket' }],
    // Each sender's messages a seeded Poisson process (the many-rooms arrival pattern).
    ['fanout.js with Poisson arrivals', 'fanout.js', { ARRIVALS: 'poisson', SEED: '7' }],
  ])(
    '%s passes its thresholds, loses nothing and delivers',
    async (label, script, env) => {
      const result = await runK6(
        k6,
        script,
        { BASE_URL: cluster!.url, PROFILE: 'smoke', ...env },
        K6_TIMEOUT_MS,
      );
      const f = figures(result);
      results[label] = f;
      const context = `${script}: ${JSON.stringify(f)}\n${tail(result.output)}`;
      expect({ timedOut: result.timedOut, exitCode: result.code, context }).toEqual({
        timedOut: false,
        exitCode: 0,
        context,
      });
      expect(f.failedThresholds).toEqual([]);
      expect(result.metrics.chat_messages_lost).toBeDefined();
      expect(f.lost).toBe(0);
      expect(f.received).toBeGreaterThan(0);
      expect(f.sent).toBeGreaterThan(0);
      expect(f.errorFrames).toBe(0);
      if (env.SOCKET_AUTH === 'ticket') {
        expect(count(result.metrics, 'http_reqs{name:POST /api/room/:room_id/ticket}')).toBe(
          count(result.metrics, 'chat_connect_latency'),
        );
      }
      if (script === 'fanout.js') {
        // Everyone joins before the first message and stays until the last: every message
        // reaches every member of its room, once.
        expect(f.received).toBe(f.sent * SMOKE.fanout.members);
      }
    },
    K6_TIMEOUT_MS + 10_000,
  );
});
