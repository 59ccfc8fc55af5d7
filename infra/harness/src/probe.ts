/**
 * The latency probe a measured message carries in its body, the same shape the k6 scripts send
 * (`{"t":<send time ms>,"n":<number>,"p":"xxx…"}`) plus `s`, the step it belongs to, so a late
 * message of one step never counts for the next; and the histogram its latencies go into: log-spaced
 * buckets 5 % wide from 10 µs to beyond a minute, cheap to fill in a child process and to merge
 * in the parent (it travels over IPC as a plain number array). The bench's load clients, the
 * storm's member processes and the slow-reader attack all measure with these.
 */
export const MIN_MS = 0.01;
export const GROWTH = 1.05;
const LOG_GROWTH = Math.log(GROWTH);
export const BUCKETS = 330;

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

export function probeBody(step: number, n: number, bytes: number): string {
  const t = Math.round(nowMs() * 1000) / 1000;
  const pad = Math.max(0, bytes - JSON.stringify({ t, n, s: step, p: '' }).length);
  return JSON.stringify({ t, n, s: step, p: 'x'.repeat(pad) });
}

/** The probe in a body, or null when the body is not one. */
export function readProbe(body: unknown) {
  if (typeof body !== 'string' || body.charCodeAt(0) !== 123) return null;
  try {
    const value = JSON.parse(body) as { t?: unknown; s?: unknown };
    return typeof value.t === 'number' && typeof value.s === 'number'
      ? { t: value.t, s: value.s }
      : null;
  } catch {
    return null;
  }
}

export function emptyHistogram(): number[] {
  return new Array<number>(BUCKETS).fill(0);
}

export function record(histogram: number[], ms: number): void {
  const index =
    ms <= MIN_MS ? 0 : Math.min(BUCKETS - 1, Math.ceil(Math.log(ms / MIN_MS) / LOG_GROWTH));
  histogram[index] = (histogram[index] ?? 0) + 1;
}

/** Records the latency of the probe in `body`, if it carries one; returns the probe. */
export function recordProbe(histogram: number[], body: unknown) {
  const probe = readProbe(body);
  if (probe) record(histogram, nowMs() - probe.t);
  return probe;
}

export function merge(into: number[], from: readonly number[]): void {
  for (let i = 0; i < BUCKETS; i += 1) into[i] = (into[i] ?? 0) + (from[i] ?? 0);
}

export const sum = (values: readonly number[]): number =>
  values.reduce((total, value) => total + value, 0);

/** How many values a histogram holds. */
export const count = sum;

/** The upper bound of the bucket holding quantile `q` (0–1), or null when empty. */
export function quantile(histogram: readonly number[], q: number): number | null {
  const total = count(histogram);
  if (total === 0) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let i = 0; i < BUCKETS; i += 1) {
    seen += histogram[i] ?? 0;
    if (seen >= rank) return MIN_MS * GROWTH ** i;
  }
  return MIN_MS * GROWTH ** (BUCKETS - 1);
}

export const round = (value: number | null, digits = 1): number | null =>
  value === null ? null : Math.round(value * 10 ** digits) / 10 ** digits;

/** Quantile `q` of a latency histogram in ms, to 0.1 ms, or null when it is empty. */
export const quantileMs = (histogram: readonly number[], q: number): number | null =>
  round(quantile(histogram, q), 1);
