import { ApiPath } from '@taco/protocol';
import type Redis from 'ioredis';
import { round, sum } from './probe';

/** One counter or gauge of a replica's Prometheus text, summed over its series that carry `labels`. */
export async function metricValue(
  replicaUrl: string,
  name: string,
  labels: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<number> {
  const response = await fetch(`${replicaUrl}${ApiPath.metrics}`, {
    signal: AbortSignal.timeout(timeoutMs),
  });
  const carries = (line: string) =>
    (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) &&
    Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`));
  const lines = (await response.text()).split('\n').filter(carries);
  return sum(lines.map((line) => Number(line.slice(line.lastIndexOf(' ') + 1)) || 0));
}

/** Calls per command since Redis started (INFO commandstats; commands inside scripts count too). */
export async function commandStats(redis: Redis): Promise<Map<string, number>> {
  const lines = (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm);
  return new Map([...lines].map(([, command = '', calls]) => [command, Number(calls)]));
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
  return { byCommand: Object.fromEntries(each), sum: sum(each.map(([, n]) => n)) };
}
