/**
 * Runs the benchmark end to end in smoke mode (tiny sizes: real redis-server, api replicas, peers
 * and load-client processes) and checks the JSON report has every figure for every server. No
 * timing assertions: only that it ran and produced numbers.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO_ROOT = resolve(__dirname, '..', '..');
const SERVERS = ['taco', 'socketio', 'raw'] as const;

interface RateFigures {
  deliveredPerSecond: number;
  p50MsAtHalf: number | null;
  p99MsAtHalf: number | null;
  cpuSecondsPer10kDeliveries: number | null;
  clientCpuPeak: number;
  steps: { received: number; expected: number; valid: boolean }[];
}

interface IdleFigures {
  connections: number;
  bytesPerConnection: number;
  clientCpuPeak: number;
}

interface Outcome<T> {
  figures: T | null;
  error: string | null;
}

interface Report {
  plan: { smoke: boolean };
  results: {
    fanout: Record<string, Outcome<RateFigures>>;
    manyRooms: Record<string, Outcome<RateFigures>>;
    idle: Record<string, Outcome<IdleFigures>>;
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
      { cwd: REPO_ROOT, encoding: 'utf8', timeout: 220_000 },
    );
    output = `${run.stdout}\n${run.stderr}`;
    expect({ status: run.status, output }).toEqual({ status: 0, output });
    report = JSON.parse(readFileSync(out, 'utf8')) as Report;
    // The smoke benchmark starts real processes (redis-server, api replicas, peers, load clients).
  }, 240_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints one table per workload and the ratios', () => {
    expect(output).toContain('fan-out (smoke)');
    expect(output).toContain('many rooms (smoke)');
    expect(output).toContain('idle (smoke)');
    expect(output).toContain('Ratios (Taco Chat ÷ other)');
    expect(report.plan.smoke).toBe(true);
  });

  it.each(SERVERS)('has every rate figure for %s in both rate workloads', (server) => {
    for (const workload of [report.results.fanout, report.results.manyRooms]) {
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

  it('has every ratio', () => {
    expect(Object.keys(report.ratios).length).toBe(7);
  });
});
