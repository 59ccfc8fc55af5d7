/**
 * infra/monitoring for every `npm test`: promtool (Debian's `prometheus` package; `.ci/run`
 * installs it) checks both Prometheus configs and the rules, and runs the rules' unit tests; the
 * alerts, the unit tests, the dashboard and the api agree on names and codes. The live check
 * (Prometheus scraping a scaled stack, every dashboard query answered) is
 * infra/compose/monitoring.compose-spec.ts.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { CloseCode, ErrorCode, FrameType } from '@taco/protocol';
import { findExecutable, REPO_ROOT } from '@taco/harness';

const run = promisify(execFile);
const MONITORING = join(REPO_ROOT, 'infra', 'monitoring');
const PROMTOOL = process.env.PROMTOOL ?? findExecutable('promtool');
const RULE_FILES = ['recording.yml', 'alerts.yml'].map((file) => join('rules', file));
const TEST_FILES = readdirSync(join(MONITORING, 'tests'))
  .filter((file) => file.endsWith('.test.yml'))
  .map((file) => join('tests', file));
const DASHBOARD = join(MONITORING, 'grafana', 'taco-chat.json');

/** `promtool …args` in infra/monitoring; resolves with its output, rejects with it. */
async function promtool(...args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run(PROMTOOL, args, { cwd: MONITORING, timeout: 60_000 });
    return stdout + stderr;
  } catch (error) {
    const failed = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string };
    if (failed.code === 'ENOENT') {
      throw new Error(
        'promtool is not installed: `.ci/run` extracts it from Debian’s prometheus package ' +
          '(or set PROMTOOL to its path)',
      );
    }
    throw new Error(`promtool ${args.join(' ')} failed:\n${failed.stdout}\n${failed.stderr}`);
  }
}

const read = (path: string) => readFileSync(join(MONITORING, path), 'utf8');

interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: { expr: string; refId: string; datasource?: { uid: string } }[];
}

const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
  uid: string;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: string }[] };
};
const queries = dashboard.panels.flatMap((panel) =>
  (panel.targets ?? []).map((target) => ({ panel, target })),
);

/** Every metric a PromQL text selects with labels (`name{…}`). */
function selectedMetrics(text: string): string[] {
  return [...text.matchAll(/\b([a-z_]\w*)\{/g)].map((match) => match[1] ?? '');
}

describe('infra/monitoring', () => {
  it('passes promtool check config: the compose and the Swarm config, with their rule files', async () => {
    for (const config of ['prometheus.yml', 'prometheus.swarm.yml']) {
      const output = await promtool('check', 'config', config);
      expect(output).toContain(`SUCCESS: ${config} is valid prometheus config file syntax`);
      expect(output).toContain(`SUCCESS: ${RULE_FILES.length} rule files found`);
    }
  });

  it('passes promtool check rules', async () => {
    const output = await promtool('check', 'rules', ...RULE_FILES);
    expect(output.match(/SUCCESS: \d+ rules found/g)).toHaveLength(RULE_FILES.length);
  });

  it('passes the rules’ unit tests (promtool test rules)', async () => {
    expect(TEST_FILES.length).toBeGreaterThan(0);
    const output = await promtool('test', 'rules', ...TEST_FILES);
    expect(output.match(/SUCCESS/g)).toHaveLength(TEST_FILES.length);
  });

  it('has a unit test in which every alert fires, with its labels and annotations', () => {
    const alerts = [...read('rules/alerts.yml').matchAll(/^\s+- alert: (\w+)$/gm)].map(
      (match) => match[1] ?? '',
    );
    expect(alerts.length).toBeGreaterThan(10);
    const tests = TEST_FILES.map(read).join('\n');
    // Each `alertname:` step up to the next one: the alert and whether it expects it to fire.
    const steps = tests.split(/^\s+alertname: /m).slice(1);
    const firing = new Set(
      steps
        .filter((step) => /exp_labels:[\s\S]*exp_annotations:/.test(step))
        .map((step) => step.split('\n')[0]?.trim()),
    );
    const quiet = new Set(
      steps.filter((step) => /exp_alerts: \[\]/.test(step)).map((step) => step.split('\n')[0]),
    );
    for (const alert of alerts) {
      expect([alert, firing.has(alert), quiet.has(alert)]).toEqual([alert, true, true]);
    }
    for (const name of [...firing, ...quiet]) expect(alerts).toContain(name);
  });

  it('keeps the Swarm config the compose config but for the api’s DNS name', () => {
    const settings = (file: string) =>
      read(file)
        .split('\n')
        .map((line) => line.replace(/\s*#.*$/, ''))
        .filter((line) => line.trim().length > 0)
        .join('\n');
    expect(settings('prometheus.yml')).toContain('- names: [api]');
    expect(settings('prometheus.swarm.yml')).toContain('- names: [tasks.api]');
    expect(settings('prometheus.swarm.yml').replace('[tasks.api]', '[api]')).toBe(
      settings('prometheus.yml'),
    );
  });

  it('names only codes and frame types the protocol defines', () => {
    const text = [...RULE_FILES, ...TEST_FILES].map(read).join('\n') + JSON.stringify(dashboard);
    const codes = new Set(
      [...text.matchAll(/\bcode=\\?"([^"\\]+)\\?"/g)].map((match) => match[1] ?? ''),
    );
    const known = new Set<string>([
      ...Object.values(ErrorCode),
      ...Object.values(CloseCode).map(String),
      'timeout',
    ]);
    for (const code of codes) expect([code, known.has(code)]).toEqual([code, true]);
    expect(codes).toContain(ErrorCode.Unavailable);
    expect(codes).toContain(String(CloseCode.TryAgainLater));
    // The rules and the dashboard count chat messages (frame type 1) only.
    const types = (from: string) =>
      new Set([...from.matchAll(/\btype=\\?"(\d+)\\?"/g)].map((match) => Number(match[1])));
    const used = RULE_FILES.map(read).join('\n') + JSON.stringify(dashboard);
    expect(types(used)).toEqual(new Set([FrameType.Message]));
    for (const type of types(text)) expect(Object.values(FrameType)).toContain(type);
  });

  it('names only metrics the api or prom-client export, in the rules and the dashboard', async () => {
    // The api's own families, from their one definition; Node's and the process's from prom-client.
    const source = readFileSync(
      join(REPO_ROOT, 'api', 'src', 'metrics', 'metrics.service.ts'),
      'utf8',
    );
    const families = new Set([...source.matchAll(/'(taco_\w+)'/g)].map((match) => match[1]));
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    for (const metric of await registry.getMetricsAsJSON()) families.add(metric.name);
    registry.clear();
    const exported = (name: string) =>
      families.has(name) || families.has(name.replace(/_(bucket|sum|count)$/, ''));

    const names = new Set(
      [...RULE_FILES.map(read), ...queries.map(({ target }) => target.expr)].flatMap(
        selectedMetrics,
      ),
    );
    const api = [...names].filter((name) => /^(taco|nodejs|process)_/.test(name));
    expect(api.length).toBeGreaterThan(8);
    for (const name of api) expect([name, exported(name)]).toEqual([name, true]);
  });

  it('has a dashboard whose every query is valid PromQL, through the Prometheus data source variable', async () => {
    expect(dashboard.uid).toBe('taco-chat');
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }),
    );
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const core of [
      'Connections',
      'Messages in / frames out per second',
      'Delivery (fan-out) latency',
      'Error frames by code',
      'Redis up',
      'Redis memory',
      'Redis commands per second',
      'Replicas up',
    ]) {
      expect(dashboard.panels.map((panel) => panel.title)).toContain(core);
    }
    expect(queries.length).toBeGreaterThan(15);
    for (const { panel, target } of queries) {
      expect([panel.title, panel.datasource?.uid, target.datasource?.uid]).toEqual([
        panel.title,
        '${datasource}',
        '${datasource}',
      ]);
    }
    // Each query as a recording rule: promtool parses it as Prometheus would.
    const folder = mkdtempSync(join(tmpdir(), 'taco-dashboard-'));
    try {
      const rules = queries
        .map(
          ({ target }, index) =>
            `      - record: dashboard_query_${index}\n        expr: ${JSON.stringify(
              target.expr.replaceAll('$__rate_interval', '1m'),
            )}`,
        )
        .join('\n');
      writeFileSync(
        join(folder, 'dashboard.yml'),
        `groups:\n  - name: dashboard\n    rules:\n${rules}\n`,
      );
      expect(await promtool('check', 'rules', join(folder, 'dashboard.yml'))).toContain(
        `SUCCESS: ${queries.length} rules found`,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
