/**
 * The compose file's `monitoring` profile for real: `--profile monitoring up --build --scale
 * api=5` under a project name of its own, then Prometheus must find every replica through DNS,
 * load every rule, and answer every query of the Grafana dashboard with data while people chat
 * (Grafana itself is not run: its panels are Prometheus queries, asked here directly). After a
 * scale-down, the replicas that left are gone from the targets and reported by
 * TacoApiReplicaGone. Always ends with `down -v`. Needs a Docker engine: `npm run test:compose`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FrameType } from '@taco/protocol';
import { freePorts, REPO_ROOT, sleep, waitFor } from '@taco/harness';
import { credentials, join as joinRoom, type RawClient } from '../test/support/chat';
import { ComposeProject } from '../test/support/compose';
import {
  artifacts,
  docker,
  keepFigures,
  seconds,
  TEST_CLIENT_LIMITS as LIMITS,
  uniqueProjectName,
} from '../test/support/docker';

const SCALED = 5;
const REPLICAS = 3;
const PROMETHEUS_IMAGE = 'prom/prometheus:v2.42.0';
const MONITORING = join(REPO_ROOT, 'infra', 'monitoring');
/** Grafana's `$__rate_interval` with the data source's 15 s scrape interval: at least 1m. */
const RATE_INTERVAL = '1m';
/** Panels that must show numbers while people chat (the others must answer, maybe empty). */
const CORE_PANELS = [
  'Replicas up',
  'Redis up',
  'Connections',
  'Connections per replica',
  'Messages in / frames out per second',
  'Delivery (fan-out) latency',
  'Redis memory',
  'Redis commands per second',
];
const ARTIFACTS = artifacts('compose');
/** The services that must be healthy; Prometheus and redis-exporter must only run. */
const CHECKED = ['api', 'redis', 'nginx'];

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}
interface Target {
  labels: Record<string, string>;
  health: string;
  lastError: string;
}
interface DashboardPanel {
  title: string;
  targets?: { expr: string; refId: string }[];
}

describe('docker-compose profile monitoring: Prometheus and redis_exporter over api ×5', () => {
  const project = uniqueProjectName('taco-ci-mon');
  let stack: ComposeProject | undefined;
  let baseUrl = '';
  let prometheusUrl = '';
  const clients: RawClient[] = [];
  const figures: Record<string, unknown> = {};

  const compose = (): ComposeProject => {
    if (!stack) throw new Error('the stack did not start');
    return stack;
  };

  /** GET `path` of Prometheus's HTTP API, its `data`. */
  const prometheus = async <T>(path: string, params: Record<string, string> = {}): Promise<T> => {
    const url = `${prometheusUrl}${path}?${new URLSearchParams(params).toString()}`;
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    const body = (await response.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`${url}: ${body.error ?? body.status}`);
    return body.data;
  };
  const query = async (expr: string): Promise<Sample[]> =>
    (await prometheus<{ result: Sample[] }>('/api/v1/query', { query: expr })).result;
  const targets = async (job: string): Promise<Target[]> =>
    (
      await prometheus<{ activeTargets: Target[] }>('/api/v1/targets', { state: 'active' })
    ).activeTargets.filter((target) => target.labels.job === job);

  /** Waits until `replicas` api replicas and redis, nginx are healthy, and the monitoring runs. */
  const waitHealthy = (replicas: number) =>
    compose().waitHealthy(
      { redis: 1, api: replicas, nginx: 1, prometheus: 1, 'redis-exporter': 1 },
      {
        timeoutMs: 240_000,
        intervalMs: 1000,
        ready: (container, service) => !CHECKED.includes(service) || container.health === 'healthy',
      },
    );

  /** Sorted addresses `ip:3000` of the running api containers. */
  const apiAddresses = async (): Promise<string[]> =>
    (await compose().running('api')).map((container) => `${container.address}:3000`).sort();

  beforeAll(async () => {
    const [nginxPort, prometheusPort] = await freePorts(2);
    stack = new ComposeProject(project, {
      ...LIMITS,
      TACO_PORT: String(nginxPort),
      PROMETHEUS_PORT: String(prometheusPort),
      TACO_IMAGE_TAG: project,
      // Every command of this project (up, ps, logs, down) with the profile, as
      // `--profile monitoring` would (Compose 1.29 and v2 read it).
      COMPOSE_PROFILES: 'monitoring',
      JWT_SECRET: '',
      LOG_LEVEL: 'warn',
    });
    baseUrl = `http://127.0.0.1:${nginxPort}`;
    prometheusUrl = `http://127.0.0.1:${prometheusPort}`;
    figures.project = project;
    const startedAt = Date.now();
    await stack.run(['up', '-d', '--build', '--scale', `api=${SCALED}`], {
      timeoutMs: 600_000,
    });
    figures.upSeconds = seconds(Date.now() - startedAt);
    await waitHealthy(SCALED);
    figures.healthySeconds = seconds(Date.now() - startedAt);
  }, 900_000);

  afterAll(async () => {
    for (const client of clients) client.socket.terminate();
    if (!stack) return;
    await stack.saveLogs(join(ARTIFACTS, 'monitoring.log'), 'prometheus', 'redis-exporter');
    await stack.tearDown();
    keepFigures(join(ARTIFACTS, 'monitoring-figures.json'), 'monitoring', figures);
  }, 240_000);

  it('passes promtool check config, check rules and test rules in the Prometheus image it runs', async () => {
    const promtool = (...args: string[]) =>
      docker(
        [
          'run',
          '--rm',
          '--network',
          'none',
          '--entrypoint',
          '/bin/promtool',
          '-v',
          `${MONITORING}:/monitoring:ro`,
          '-w',
          '/monitoring',
          PROMETHEUS_IMAGE,
          ...args,
        ],
        { timeoutMs: 90_000 },
      );
    const tests = readdirSync(join(MONITORING, 'tests'))
      .filter((file) => file.endsWith('.test.yml'))
      .map((file) => `tests/${file}`);
    const config = await promtool('check', 'config', 'prometheus.yml');
    expect(config.stdout).toContain('SUCCESS: prometheus.yml is valid prometheus config file');
    const rules = await promtool('check', 'rules', 'rules/recording.yml', 'rules/alerts.yml');
    expect(rules.stdout.match(/SUCCESS/g)).toHaveLength(2);
    const unit = await promtool('test', 'rules', ...tests);
    expect(unit.stdout.match(/SUCCESS/g)).toHaveLength(tests.length);
  });

  it(`finds every api replica through DNS: ${SCALED} healthy api targets, Redis and itself`, async () => {
    const startedAt = Date.now();
    const expected = await apiAddresses();
    expect(expected).toHaveLength(SCALED);
    await waitFor(
      `${SCALED} healthy api targets at the replicas' addresses`,
      async () => {
        const api = await targets('api');
        return (
          api.length === SCALED &&
          api.every((target) => target.health === 'up') &&
          JSON.stringify(api.map((target) => target.labels.instance).sort()) ===
            JSON.stringify(expected)
        );
      },
      { timeoutMs: 90_000, intervalMs: 1000 },
    );
    figures.apiTargetsUpSeconds = seconds(Date.now() - startedAt);
    for (const job of ['redis', 'prometheus']) {
      await waitFor(
        `the ${job} target up`,
        async () => {
          const [target, ...more] = await targets(job);
          return more.length === 0 && target?.health === 'up';
        },
        { timeoutMs: 60_000, intervalMs: 1000 },
      );
    }
    expect(await query('redis_up')).toEqual([
      expect.objectContaining({ value: [expect.any(Number), '1'] }),
    ]);
    // Every replica reports itself ready to Prometheus too.
    await waitFor(
      `${SCALED} ready replicas in taco_ready`,
      async () => (await query('sum(taco_ready{job="api"})'))[0]?.value[1] === String(SCALED),
      { timeoutMs: 60_000, intervalMs: 1000 },
    );
  });

  it('loads every recording and alerting rule, all healthy, and nothing fires', async () => {
    const files = ['recording.yml', 'alerts.yml'].map((file) =>
      readFileSync(join(MONITORING, 'rules', file), 'utf8'),
    );
    const defined = files.join('\n').match(/^\s+- (record|alert): /gm)?.length ?? 0;
    await waitFor(
      'every rule evaluated at least once',
      async () => {
        const { groups } = await prometheus<{
          groups: { rules: { health: string; lastEvaluation: string }[] }[];
        }>('/api/v1/rules');
        const rules = groups.flatMap((group) => group.rules);
        return (
          rules.length === defined &&
          rules.every((rule) => rule.health === 'ok' && !rule.lastEvaluation.startsWith('0001'))
        );
      },
      { timeoutMs: 60_000, intervalMs: 1000 },
    );
    figures.rules = defined;
    // Pending is fine (TacoApiAllReplicasDown is, until the first scrapes); firing is not.
    const { alerts } = await prometheus<{
      alerts: { labels: Record<string, string>; state: string }[];
    }>('/api/v1/alerts');
    const firing = alerts.filter((alert) => alert.state === 'firing');
    expect(firing.map((alert) => alert.labels.alertname)).toEqual([]);
  });

  it('answers every query of the Grafana dashboard while people chat, with data in the core panels', async () => {
    // Two rooms of four members through nginx, spread over the replicas by least_conn.
    for (const room of [`watch-a-${project.slice(-6)}`, `watch-b-${project.slice(-6)}`]) {
      for (const name of ['ann', 'bob', 'cat', 'dan']) {
        clients.push(await joinRoom(baseUrl, room, name, await credentials(baseUrl, room, name)));
      }
    }
    // Each member says something every 400 ms until the queries are done.
    let chatting = true;
    let sent = 0;
    const chat = (async () => {
      for (let round = 0; chatting; round++) {
        for (const client of clients) {
          client.send({ type: FrameType.Message, body: `round ${round}`, client_id: `c${sent}` });
          sent++;
        }
        await sleep(400);
      }
    })();
    try {
      const startedAt = Date.now();
      // Two scrapes of the message counters are needed before a rate shows.
      await waitFor(
        'messages counted by Prometheus',
        async () =>
          Number(
            (
              await query(`sum(rate(taco_frames_in_total{job="api", type="1"}[${RATE_INTERVAL}]))`)
            )[0]?.value[1] ?? 0,
          ) > 0,
        { timeoutMs: 120_000, intervalMs: 2000 },
      );
      figures.messagesVisibleSeconds = seconds(Date.now() - startedAt);

      const dashboard = JSON.parse(
        readFileSync(join(MONITORING, 'grafana', 'taco-chat.json'), 'utf8'),
      ) as { panels: DashboardPanel[] };
      const panels = dashboard.panels.filter((panel) => (panel.targets ?? []).length > 0);
      for (const title of CORE_PANELS) expect(panels.map((panel) => panel.title)).toContain(title);
      const answers: Record<string, number> = {};
      const ask = async () => {
        const missing: string[] = [];
        for (const panel of panels) {
          for (const target of panel.targets ?? []) {
            const expr = target.expr.replaceAll('$__rate_interval', RATE_INTERVAL);
            const result = await query(expr); // throws on an invalid query
            const values = result.map((sample) => Number(sample.value[1]));
            const key = `${panel.title} / ${target.refId}`;
            answers[key] = values.length;
            const core = CORE_PANELS.includes(panel.title);
            if (values.length === 0 || (core && !values.every(Number.isFinite))) {
              missing.push(`${key}: ${expr} → ${JSON.stringify(values)}`);
            }
          }
        }
        return missing;
      };
      let missing: string[] = [];
      await waitFor(
        'data for every dashboard query',
        async () => {
          missing = await ask();
          return missing.length === 0;
        },
        { timeoutMs: 60_000, intervalMs: 5000 },
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}\n${missing.join('\n')}`);
      });
      figures.dashboardQueries = Object.keys(answers).length;

      // The figures make sense: five replicas up and ready, everyone connected, Redis up.
      const value = async (expr: string) => Number((await query(expr))[0]?.value[1]);
      expect(await value('sum(up{job="api"})')).toBe(SCALED);
      expect(await value('redis_up{job="redis"}')).toBe(1);
      expect(await value('sum(taco_connections{job="api"})')).toBeGreaterThanOrEqual(
        clients.length,
      );
      const p99 = await value(
        `histogram_quantile(0.99, sum by (le) (rate(taco_fanout_seconds_bucket{job="api"}[${RATE_INTERVAL}])))`,
      );
      expect(p99).toBeGreaterThan(0);
      figures.fanoutP99Seconds = p99;
      figures.messagesSent = sent;
    } finally {
      chatting = false;
      await chat;
    }
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });

  it(`drops the replicas a scale-down to ${REPLICAS} removed, and reports them gone`, async () => {
    const before = new Set(await apiAddresses());
    await compose().run(['up', '-d', '--scale', `api=${REPLICAS}`, '--no-recreate'], {
      timeoutMs: 180_000,
    });
    await waitHealthy(REPLICAS);
    const after = await apiAddresses();
    const removed = [...before].filter((address) => !after.includes(address)).sort();
    expect(removed).toHaveLength(SCALED - REPLICAS);
    const startedAt = Date.now();
    await waitFor(
      `${REPLICAS} api targets left`,
      async () =>
        JSON.stringify((await targets('api')).map((target) => target.labels.instance).sort()) ===
        JSON.stringify(after),
      { timeoutMs: 60_000, intervalMs: 1000 },
    );
    figures.scaleDownTargetsSeconds = seconds(Date.now() - startedAt);
    // TacoApiReplicaGone names each removed replica (pending for its first minute).
    await waitFor(
      'TacoApiReplicaGone for each removed replica',
      async () => {
        const gone = await query('ALERTS{alertname="TacoApiReplicaGone"}');
        return (
          JSON.stringify(gone.map((sample) => sample.metric.instance).sort()) ===
          JSON.stringify(removed)
        );
      },
      { timeoutMs: 60_000, intervalMs: 2000 },
    );
    figures.replicaGoneSeconds = seconds(Date.now() - startedAt);
  });
});
