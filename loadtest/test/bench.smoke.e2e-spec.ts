/**
 * Runs the benchmark end to end in smoke mode (tiny sizes: real redis-server, a real Redis
 * Cluster, api replicas, peers and load-client processes) and checks the JSON report has every
 * figure for every server, and that the counts agree (every message sent reached every member of
 * its room). No timing assertions: only that it ran and produced consistent numbers.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO_ROOT = resolve(__dirname, '..', '..');
const SERVERS = ['taco', 'socketio', 'raw'] as const;

interface Step {
  sent: number;
  received: number;
  expected: number;
  valid: boolean;
  p50Ms: number | null;
  p99Ms: number | null;
  serverCpuSeconds: number;
  redisCpuSeconds: number;
  redisCpuByNode: Record<string, number>;
}

interface RateFigures {
  deliveredPerSecond: number;
  p50MsAtHalf: number | null;
  p99MsAtHalf: number | null;
  cpuSecondsPer10kDeliveries: number | null;
  clientCpuPeak: number;
  steps: Step[];
  loadSteps: (Step & { fraction: number; cpuSecondsPer10kDeliveries: number | null })[];
}

interface ClusterStep extends Step {
  nginxCpuSeconds: number;
  redisMicrosPerDelivery: number | null;
  redisMicrosPerDeliveryByNode: Record<string, number>;
}

interface ClusterRun {
  nodes: string[];
  steps: ClusterStep[];
}

interface PubSubRun {
  masters: number;
  mode: string;
  subscribers: number;
  published: number;
  received: number;
  redisMicrosPerMessage: number | null;
  redisMicrosPerMessageByNode: Record<string, number>;
}

interface IdleFigures {
  connections: number;
  bytesPerConnection: number;
  clientCpuPeak: number;
}

interface UpkeepWindow {
  replicaMsPerSecondPer1k: number;
  redisMsPerSecondPer1k: number;
}

interface UpkeepFigures {
  members: number;
  baseline: { replicaCores: number; redisCores: number };
  quiet: UpkeepWindow;
  heartbeat: UpkeepWindow;
}

interface Outcome<T> {
  figures: T | null;
  error: string | null;
}

interface Report {
  plan: { smoke: boolean; loadFractions: number[]; manyRooms: { members: number } };
  results: {
    fanout: Record<string, Outcome<RateFigures>>;
    manyRooms: Record<string, Outcome<RateFigures>>;
    manyRoomsPoisson: Record<string, Outcome<RateFigures>>;
    upkeep: Record<string, Outcome<UpkeepFigures>>;
    idle: Record<string, Outcome<IdleFigures>>;
    cluster: Outcome<{
      standalone: Outcome<ClusterRun>;
      viaNginx: Outcome<ClusterRun>;
      cluster: Outcome<ClusterRun>;
    }>;
    pubsub: Outcome<{ runs: PubSubRun[] }>;
  };
  ratios: Record<string, { vsSocketIo: number | null; vsRaw: number | null }>;
}

describe('npm run bench -- --smoke', () => {
  const dir = mkdtempSync(join(tmpdir(), 'taco-bench-smoke-'));
  const out = join(dir, 'report.json');
  let report: Report;
  let output: string;

  beforeAll(() => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'loadtest', 'bench', 'main.ts'), '--smoke', '--out', out],
      { cwd: REPO_ROOT, encoding: 'utf8', timeout: 420_000 },
    );
    output = `${run.stdout}\n${run.stderr}`;
    expect({ status: run.status, output }).toEqual({ status: 0, output });
    report = JSON.parse(readFileSync(out, 'utf8')) as Report;
    // The smoke benchmark starts real processes (redis-server, api replicas, peers, load clients).
  }, 440_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints one table per workload and the ratios', () => {
    expect(output).toContain('fan-out (smoke)');
    expect(output).toContain('many rooms (smoke)');
    expect(output).toContain('many rooms (Poisson arrivals) (smoke)');
    expect(output).toContain('idle (smoke)');
    expect(output).toContain('idle upkeep: ');
    expect(output).toContain('Ratios (Taco Chat ÷ other)');
    expect(report.plan.smoke).toBe(true);
  });

  const rated = () => [
    report.results.fanout,
    report.results.manyRooms,
    report.results.manyRoomsPoisson,
  ];

  it.each(SERVERS)('has every rate figure for %s in every rate workload', (server) => {
    for (const workload of rated()) {
      const outcome = workload[server]!;
      expect(outcome.error).toBeNull();
      const figures = outcome.figures!;
      expect(figures.steps.length).toBeGreaterThan(0);
      for (const step of figures.steps) expect(step.received).toBeGreaterThan(0);
      expect(Number.isFinite(figures.deliveredPerSecond)).toBe(true);
      expect(typeof figures.p50MsAtHalf).toBe('number');
      expect(typeof figures.p99MsAtHalf).toBe('number');
      expect(Number.isFinite(figures.clientCpuPeak)).toBe(true);
      expect(figures).toHaveProperty('cpuSecondsPer10kDeliveries');
    }
  });

  it.each(SERVERS)('has the idle figures for %s', (server) => {
    const outcome = report.results.idle[server]!;
    expect(outcome.error).toBeNull();
    expect(outcome.figures!.connections).toBeGreaterThan(0);
    expect(Number.isFinite(outcome.figures!.bytesPerConnection)).toBe(true);
  });

  it.each(['taco', 'raw'])('has the idle upkeep figures for %s, both windows', (server) => {
    const outcome = report.results.upkeep[server]!;
    expect(outcome.error).toBeNull();
    const figures = outcome.figures!;
    expect(figures.members).toBe(50);
    expect(Number.isFinite(figures.baseline.replicaCores)).toBe(true);
    for (const window of [figures.quiet, figures.heartbeat]) {
      expect(Number.isFinite(window.replicaMsPerSecondPer1k)).toBe(true);
      expect(Number.isFinite(window.redisMsPerSecondPer1k)).toBe(true);
    }
    expect(report.results.upkeep.socketio).toEqual({ figures: null, error: null });
  });

  it.each(SERVERS)('runs a step at each fraction of capacity for %s', (server) => {
    for (const workload of rated()) {
      const figures = workload[server]!.figures!;
      expect(figures.loadSteps.map((step) => step.fraction)).toEqual(report.plan.loadFractions);
      for (const step of figures.loadSteps) {
        // Every message sent reached every member of its room, and nothing else was counted.
        expect(step.received).toBe(step.expected);
        expect(Number.isFinite(step.serverCpuSeconds)).toBe(true);
      }
      const full = figures.loadSteps.at(-1)!;
      expect(full.sent).toBeGreaterThan(0);
      expect(typeof full.p99Ms).toBe('number');
      expect(full.cpuSecondsPer10kDeliveries).not.toBeNull();
    }
  });

  it('runs many rooms on one Redis and on a 3-master cluster, with Redis CPU per node', () => {
    const { standalone, viaNginx, cluster } = report.results.cluster.figures!;
    expect(standalone.error).toBeNull();
    expect(viaNginx.error).toBeNull();
    expect(cluster.error).toBeNull();
    expect(standalone.figures!.nodes).toEqual(['redis']);
    for (const step of viaNginx.figures!.steps) {
      expect(step.received).toBe(step.expected);
      expect(step.nginxCpuSeconds).toBeGreaterThanOrEqual(0);
    }
    // 3 masters and their 3 replicas, each named by port and role.
    expect(cluster.figures!.nodes).toHaveLength(6);
    expect(cluster.figures!.nodes.filter((name) => name.endsWith(' master'))).toHaveLength(3);
    for (const run of [standalone.figures!, cluster.figures!]) {
      expect(run.steps.length).toBeGreaterThan(0);
      for (const step of run.steps) {
        expect(step.sent).toBeGreaterThan(0);
        expect(step.expected).toBe(step.sent * report.plan.manyRooms.members);
        expect(step.received).toBe(step.expected);
        expect(typeof step.p99Ms).toBe('number');
        expect(Object.keys(step.redisMicrosPerDeliveryByNode).sort()).toEqual(
          [...run.nodes].sort(),
        );
        const sum = Object.values(step.redisCpuByNode).reduce((all, value) => all + value, 0);
        expect(sum).toBeCloseTo(step.redisCpuSeconds, 6);
      }
    }
  });

  it('compares PUBLISH and SPUBLISH with every message delivered', () => {
    const runs = report.results.pubsub.figures!.runs;
    expect(runs.map((run) => `${run.mode} ${run.subscribers}`).sort()).toEqual([
      'PUBLISH 1',
      'PUBLISH 2',
      'SPUBLISH 1',
      'SPUBLISH 2',
    ]);
    for (const run of runs) {
      expect(run.published).toBeGreaterThan(0);
      // Each published message arrives exactly once at each of the channel's subscribers.
      expect(run.received).toBe(run.published * run.subscribers);
      expect(Object.keys(run.redisMicrosPerMessageByNode)).toHaveLength(run.masters);
      expect(Number.isFinite(run.redisMicrosPerMessage)).toBe(true);
    }
  });

  it('has every ratio', () => {
    // Three rate workloads × 3, idle memory, and upkeep (quiet and heartbeat × replica and Redis).
    expect(Object.keys(report.ratios).length).toBe(14);
  });
});
