/** What the bench's scenarios (slow reader, reconnect storm, connect cost) share. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { quantile } from '@taco/harness';
import type Redis from 'ioredis';

/**
 * A scenario's command line: its own string options `names`, and `--only`, `--out` and `--smoke`
 * (tiny sizes) that every scenario takes.
 */
export function scenarioArgs<K extends string>(argv: string[], names: readonly K[]) {
  const own = Object.fromEntries(names.map((name) => [name, { type: 'string' as const }]));
  const { values } = parseArgs({
    args: argv,
    options: {
      ...own,
      only: { type: 'string' },
      out: { type: 'string' },
      smoke: { type: 'boolean' },
    },
  });
  return values as Partial<Record<K | 'only' | 'out', string>> & { smoke?: boolean };
}

/** A whole number option between `min` and `max`, or its default. */
export function intOption(
  name: string,
  text: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`--${name} must be a whole number from ${min} to ${max} (got "${text}")`);
  }
  return value;
}

/** Writes a scenario's figures as JSON (default loadtest/results/<scenario>-latest.json). */
export function writeReport(scenario: string, out: string | undefined, report: unknown): string {
  const path = resolve(out ?? resolve(__dirname, '..', '..', 'results', `${scenario}-latest.json`));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  return path;
}

export const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

export const round = (value: number | null, digits = 1): number | null =>
  value === null ? null : Math.round(value * 10 ** digits) / 10 ** digits;

export const MIB = 1024 * 1024;

/** Quantile `q` of a latency histogram in ms, to 0.1 ms, or null when it is empty. */
export const ms = (histogram: readonly number[], q: number): number | null =>
  round(quantile(histogram, q), 1);

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Calls per command since Redis started (INFO commandstats; commands inside scripts count too). */
export async function commandStats(redis: Redis): Promise<Map<string, number>> {
  const stats = new Map<string, number>();
  for (const line of (await redis.info('commandstats')).split('\n')) {
    const match = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (match?.[1] && match[2]) stats.set(match[1], Number(match[2]));
  }
  return stats;
}

/**
 * Redis commands per `units` (connects, reconnects) between two `commandStats` readings, less
 * `baseline` calls of each, rounded to 2 digits, the most frequent first, those under `min` left
 * out; and their sum.
 */
export function commandsPer(
  after: Map<string, number>,
  before: Map<string, number>,
  units: number,
  min: number,
  baseline: (command: string) => number = () => 0,
) {
  const each: [string, number][] = [];
  for (const [command, calls] of after) {
    const per = (calls - (before.get(command) ?? 0) - baseline(command)) / units;
    if (units > 0 && per >= min) each.push([command, round(per, 2) ?? 0]);
  }
  each.sort((a, b) => b[1] - a[1]);
  return { byCommand: Object.fromEntries(each), sum: each.reduce((sum, [, n]) => sum + n, 0) };
}
