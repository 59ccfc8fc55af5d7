/** What the bench's scenarios (slow reader, reconnect storm) share: limits, HTTP calls, output. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type Redis from 'ioredis';
import { ApiPath, type RoomCredentialsResponse, type RoomTicketResponse } from '@taco/protocol';

/** Limits raised so a scenario measures what it is about, not the per-IP abuse limits. */
export const SCENARIO_ENV: Record<string, string> = {
  LOG_LEVEL: 'warn',
  MESSAGE_BURST: '10000',
  MESSAGES_PER_SECOND: '100000',
  TYPING_PER_SECOND: '1000',
  HISTORY_REQUESTS_PER_10S: '10000',
  CREDENTIALS_PER_MINUTE: '1000000',
  CONNECTIONS_PER_IP: '1000000',
};

const HTTP_TIMEOUT_MS = 30_000;

/** `POST /api/room/:room_id`: a token for `name` in `room`. */
export async function credentials(baseUrl: string, room: string, name: string): Promise<string> {
  const response = await fetch(`${baseUrl}${ApiPath.roomCredentials(room)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sender_id: name }),
    signal: AbortSignal.timeout(HTTP_TIMEOUT_MS),
  });
  if (response.status !== 200) throw new Error(`credentials: HTTP ${response.status}`);
  return ((await response.json()) as RoomCredentialsResponse).token;
}

/** `POST /api/room/:room_id/ticket`: a single-use socket ticket, or `null` on 401. */
export async function ticket(baseUrl: string, room: string, token: string): Promise<string | null> {
  const response = await fetch(`${baseUrl}${ApiPath.roomTicket(room)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(HTTP_TIMEOUT_MS),
  });
  if (response.status === 401) return null;
  if (response.status !== 201) throw new Error(`ticket: HTTP ${response.status}`);
  return ((await response.json()) as RoomTicketResponse).ticket;
}

/** One counter of a replica's Prometheus text (summed over its series that carry `labels`). */
export async function metricValue(
  replicaUrl: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const response = await fetch(`${replicaUrl}${ApiPath.metrics}`, {
    signal: AbortSignal.timeout(HTTP_TIMEOUT_MS),
  });
  let total = 0;
  for (const line of (await response.text()).split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) {
      continue;
    }
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
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
