import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CloseCode } from '@taco/protocol';
import { type IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { parse } from 'yaml';
import {
  chatter,
  ChatMember,
  type Cluster,
  FAST_RECONNECT,
  followFile,
  httpStatus,
  members,
  settle,
  sleep,
  startCluster,
  verdict,
} from '@taco/harness';
import { API_DRAIN_SECONDS, KUBERNETES_DIR } from './support/kubernetes';
import { credentials, join as joinRoom } from './support/chat';

/** preStop and the grace period of the api pods, as infra/kubernetes/base declares them. */
function apiShutdownTiming(): { preStopSeconds: number; graceSeconds: number } {
  const deployment = parse(
    readFileSync(join(KUBERNETES_DIR, 'base', 'api-deployment.yaml'), 'utf8'),
  ) as IDeployment;
  const pod = deployment.spec?.template.spec;
  const preStopSeconds = pod?.containers[0]?.lifecycle?.preStop?.sleep?.seconds;
  if (preStopSeconds === undefined || pod?.terminationGracePeriodSeconds === undefined) {
    throw new Error('api-deployment.yaml declares no preStop sleep or grace period');
  }
  return { preStopSeconds, graceSeconds: pod.terminationGracePeriodSeconds };
}

/** One access-log line, and when it was seen (nginx writes a line when its request ends). */
interface Seen {
  at: number;
  upstreams: string[];
  requestMs: number;
  line: string;
}

/** How often the access log is read: a line is seen at most this long after nginx wrote it. */
const LOG_POLL_MS = 50;
/** After nginx's new workers run, the time for the old ones to stop taking requests. */
const SETTLE_MS = 500;

/**
 * What Kubernetes does to a pod that goes, replayed on the no-Docker cluster: (1) the pod leaves
 * the endpoints, and nginx (re-resolving the headless Service) stops choosing it — here nginx's
 * upstream is rendered without it and reloaded; (2) the preStop sleep of the manifest passes with
 * the replica still serving; (3) SIGTERM: it drains (1012) and exits, its clients reconnect
 * through nginx to the others. All of it under chat traffic and a stream of new requests.
 */
describe('the Kubernetes shutdown order, replayed on the cluster runner', () => {
  let cluster: Cluster | undefined;

  beforeAll(async () => {
    cluster = await startCluster({
      replicas: 3,
      // Every client is one address here, and each says something five times a second.
      env: {
        LOG_LEVEL: 'warn',
        CREDENTIALS_PER_MINUTE: '10000',
        CONNECTIONS_PER_IP: '10000',
        MESSAGES_PER_SECOND: '20',
        MESSAGE_BURST: '40',
      },
    });
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('loses and doubles nothing, keeps every client connected, and sends the pod nothing once it left the endpoints', async () => {
    if (!cluster) throw new Error('no cluster');
    const { preStopSeconds, graceSeconds } = apiShutdownTiming();
    const { nginx, replicas, url } = cluster;
    const [victim, ...others] = replicas;
    if (!victim) throw new Error('no replica');
    const victimAddress = `127.0.0.1:${victim.port}`;

    const seen: Seen[] = [];
    const access = followFile(
      nginx.accessLog,
      (line) => {
        const fields = / (\d{3}) \d+ ([\d.]+) upstream=(.*?) upstream_status=/.exec(line);
        if (!fields) return;
        seen.push({
          at: Date.now(),
          requestMs: Number(fields[2]) * 1000,
          // One address per try: `a, b` when nginx moved on, `a : b` across an internal redirect.
          upstreams: [...(fields[3] ?? '').matchAll(/\d+\.\d+\.\d+\.\d+:\d+/g)].map((m) => m[0]),
          line,
        });
      },
      LOG_POLL_MS,
    );

    const room = `kube-shutdown-${Date.now()}`;
    const all = await members(cluster.url, room, 9);
    // A client that stopped reading (a frozen phone): it holds the drain open to its bound.
    const frozen = await joinRoom(
      victim.url,
      room,
      'frozen',
      await credentials(victim.url, room, 'frozen'),
    );
    // New requests all along (page loads' API calls, health checks): nginx picks a replica for
    // each, so any pick of the removed one shows in the access log.
    let probing = true;
    const probes = (async () => {
      while (probing) {
        await httpStatus(`${url}/api/health/live`, 1000);
        await sleep(40);
      }
    })();

    let removedAt = 0;
    let settledAt = 0;
    let drainMs = 0;
    const everyone = [...all];
    try {
      await chatter(all, (preStopSeconds + 6) * 1000, 200, async () => {
        await sleep(1000);
        // (1) The pod leaves the endpoints; nginx follows.
        removedAt = Date.now();
        await nginx.route(others);
        settledAt = Date.now() + SETTLE_MS;
        // (2) preStop: the replica still serves its sockets; new ones go elsewhere.
        await sleep((preStopSeconds * 1000) / 2);
        const late = ['late 1', 'late 2', 'late 3'].map(
          (name) => new ChatMember(url, room, name, { policy: FAST_RECONNECT }),
        );
        everyone.push(...late);
        await Promise.all(late.map((client) => client.connect()));
        await sleep((preStopSeconds * 1000) / 2);
        // (3) SIGTERM: drain and exit.
        frozen.socket.pause();
        const terminatedAt = Date.now();
        victim.kill('SIGTERM');
        const exit = await victim.exited;
        drainMs = Date.now() - terminatedAt;
        expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);
      });
      await settle(everyone);
    } finally {
      probing = false;
      await probes;
      await sleep(LOG_POLL_MS * 4);
      access.stop();
      frozen.socket.terminate();
    }

    const onVictim = all.filter((client) => client.stats.closeCodes.includes(CloseCode.Restart));
    const result = await verdict(cluster, 'kubernetes shutdown', room, everyone, [], 0, [victim]);
    // Nothing acknowledged is lost or shown twice, and nothing crashed.
    expect(result).toMatchObject({ crashes: 0, missingAcked: 0, duplicatesShown: 0 });
    expect(result.acked).toBeGreaterThan(everyone.length * preStopSeconds);
    // The replica's own clients were drained with 1012 and came back within seconds.
    expect(onVictim.length).toBeGreaterThan(0);
    expect(result.reconnects).toBeGreaterThanOrEqual(onVictim.length);
    expect(result.reconnectMaxMs ?? Infinity).toBeLessThan(5000);
    // The drain stayed within what the manifest's grace period allows for it.
    expect(drainMs).toBeLessThan(API_DRAIN_SECONDS * 1000);
    expect(preStopSeconds * 1000 + drainMs).toBeLessThan(graceSeconds * 1000);

    // The removed replica got requests before (1), and none that started after nginx settled;
    // the others got plenty then. A request started at most its duration before it was seen.
    const started = (entry: Seen) => entry.at - LOG_POLL_MS - entry.requestMs;
    const toVictim = (entry: Seen) => entry.upstreams.includes(victimAddress);
    expect(seen.filter((entry) => toVictim(entry) && entry.at < removedAt).length).toBeGreaterThan(
      3,
    );
    const late = seen.filter((entry) => started(entry) >= settledAt);
    expect(late.length).toBeGreaterThan(20);
    expect(late.filter(toVictim).map((entry) => entry.line)).toEqual([]);
  }, 120_000);
});
