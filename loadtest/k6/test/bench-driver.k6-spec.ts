/**
 * `npm run bench -- --driver k6` in smoke mode: the benchmark's workloads driven by k6 VUs
 * (bench/k6-load-client.js through bench/k6-pool.ts) against all three servers. Checks that every
 * step reports consistent counts (every message sent reached every member of its room) and the
 * figures exist; no timing assertions.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findK6, REPO_ROOT } from './k6-runner';

const SERVERS = ['taco', 'socketio', 'raw'] as const;
const WORKLOADS = ['fanout', 'manyRooms'] as const;

interface Step {
  sent: number;
  expected: number;
  received: number;
  errors: number;
  p99Ms: number | null;
  clientCpu: number;
}

interface RateFigures {
  steps: Step[];
  loadSteps: (Step & { fraction: number; cpuSecondsPer10kDeliveries: number | null })[];
  deliveredPerSecond: number;
}

interface Report {
  driver: string;
  plan: Record<(typeof WORKLOADS)[number], { members: number }> & { loadFractions: number[] };
  results: Record<
    (typeof WORKLOADS)[number],
    Record<string, { figures: RateFigures | null; error: string | null }>
  >;
}

describe('npm run bench -- --smoke --driver k6', () => {
  const dir = mkdtempSync(join(tmpdir(), 'taco-bench-k6-'));
  const out = join(dir, 'report.json');
  let report: Report;

  beforeAll(() => {
    findK6();
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        join(REPO_ROOT, 'loadtest', 'bench', 'main.ts'),
        '--smoke',
        '--driver',
        'k6',
        '--only',
        WORKLOADS.join(','),
        '--out',
        out,
      ],
      { cwd: REPO_ROOT, encoding: 'utf8', timeout: 400_000 },
    );
    const output = `${run.stdout}\n${run.stderr}`;
    expect({ status: run.status, output }).toEqual({ status: 0, output });
    report = JSON.parse(readFileSync(out, 'utf8')) as Report;
  }, 420_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says k6 drove the run', () => {
    expect(report.driver).toBe('k6');
  });

  it.each(SERVERS)('delivers every message k6 sent to every member, on %s', (server) => {
    for (const workload of WORKLOADS) {
      const outcome = report.results[workload][server]!;
      expect(outcome.error).toBeNull();
      const figures = outcome.figures!;
      const members = report.plan[workload].members;
      expect(figures.loadSteps.map((step) => step.fraction)).toEqual(report.plan.loadFractions);
      for (const step of [...figures.steps, ...figures.loadSteps]) {
        expect(step.expected).toBe(step.sent * members);
        expect(step.received).toBe(step.expected);
        expect(step.errors).toBe(0);
        expect(Number.isFinite(step.clientCpu)).toBe(true);
      }
      const full = figures.loadSteps.at(-1)!;
      expect(full.sent).toBeGreaterThan(0);
      expect(typeof full.p99Ms).toBe('number');
      expect(full.cpuSecondsPer10kDeliveries).not.toBeNull();
      expect(figures.deliveredPerSecond).toBeGreaterThan(0);
    }
  });
});
