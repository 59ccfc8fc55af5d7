/**
 * Runs a k6 script of loadtest/k6 as a child process and reads its end-of-test summary from the
 * JSON `--summary-export` writes (never from k6's human output).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

export const K6_DIR = resolve(__dirname, '..');
export const REPO_ROOT = resolve(K6_DIR, '..', '..');
/** `k6/websockets` is stable (no longer experimental) from this version on. */
const K6_MIN_VERSION = [1, 6, 0];
const INSTALL_HINT =
  'run ../shared/tools/k6/install.sh (it puts k6 v1.8.1 in /usr/local/bin; CI installs it)';

/** The k6 on the PATH, checked to be recent enough; throws a message saying what to do. */
export function findK6(): string {
  const found = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((folder) => folder.length > 0)
    .map((folder) => join(folder, 'k6'))
    .find((path) => existsSync(path));
  if (found === undefined) throw new Error(`k6 is not on the PATH: ${INSTALL_HINT}`);
  const run = spawnSync(found, ['version'], { encoding: 'utf8', timeout: 10_000 });
  const match = /k6 v(\d+)\.(\d+)\.(\d+)/.exec(`${run.stdout}`);
  const version = match ? match.slice(1, 4).map(Number) : null;
  const tooOld =
    version === null ||
    version[0]! * 1e6 + version[1]! * 1e3 + version[2]! <
      K6_MIN_VERSION[0]! * 1e6 + K6_MIN_VERSION[1]! * 1e3 + K6_MIN_VERSION[2]!;
  if (tooOld) {
    throw new Error(
      `${found} is ${match ? match[0] : 'of an unknown version'}; the scripts need k6 ≥ ` +
        `${K6_MIN_VERSION.join('.')} (k6/websockets): ${INSTALL_HINT}`,
    );
  }
  return found;
}

/** One metric of the legacy summary export: counters have count/rate, trends avg/p(95)/…. */
export type SummaryMetric = Record<string, number | Record<string, boolean>> & {
  thresholds?: Record<string, boolean>;
};

export interface K6Result {
  /** k6's exit code: 0 when every threshold passed, 99 when one failed. */
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** stdout and stderr, interleaved, the last ~200 kB. */
  output: string;
  metrics: Record<string, SummaryMetric>;
}

const OUTPUT_LIMIT = 200_000;

/**
 * `k6 run --summary-export … <script>` with `-e` variables; killed (SIGKILL) if it runs longer
 * than `timeoutMs`.
 */
export async function runK6(
  k6: string,
  script: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<K6Result> {
  const dir = mkdtempSync(join(tmpdir(), 'taco-k6-'));
  const summaryPath = join(dir, 'summary.json');
  const args = ['run', '--no-color', '--quiet', '--summary-export', summaryPath];
  for (const [key, value] of Object.entries(env)) args.push('-e', `${key}=${value}`);
  args.push(join(K6_DIR, script));
  try {
    const child = spawn(k6, args, {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.length > OUTPUT_LIMIT) output = output.slice(-OUTPUT_LIMIT);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>(
      (resolveExit) => {
        child.once('error', (error) => {
          output += `\n${String(error)}`;
          resolveExit([null, null]);
        });
        child.once('close', (exitCode, exitSignal) => resolveExit([exitCode, exitSignal]));
      },
    );
    clearTimeout(timer);
    const metrics = existsSync(summaryPath)
      ? ((JSON.parse(readFileSync(summaryPath, 'utf8')) as { metrics: K6Result['metrics'] })
          .metrics ?? {})
      : {};
    return { code, signal, timedOut, output, metrics };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A counter's count, or 0 when the metric never got a sample. */
export function count(metrics: K6Result['metrics'], name: string): number {
  const value = metrics[name]?.count;
  return typeof value === 'number' ? value : 0;
}

/** A trend's statistic (`p(95)`, `p(99)`, `avg`…), or null. */
export function stat(metrics: K6Result['metrics'], name: string, key: string): number | null {
  const value = metrics[name]?.[key];
  return typeof value === 'number' ? value : null;
}

/** Thresholds that failed (the export marks a failed one `true`). */
export function failedThresholds(metrics: K6Result['metrics']): string[] {
  const failed: string[] = [];
  for (const [name, metric] of Object.entries(metrics)) {
    for (const [threshold, crossed] of Object.entries(metric.thresholds ?? {})) {
      if (crossed) failed.push(`${name}: ${threshold}`);
    }
  }
  return failed;
}

/** The last `lines` lines of an output, for a failure message. */
export function tail(output: string, lines = 60): string {
  return output.split('\n').slice(-lines).join('\n');
}
