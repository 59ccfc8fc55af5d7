/**
 * A latency histogram with log-spaced buckets (5 % wide from 10 µs to beyond a minute), cheap to
 * fill in a load client and to merge in the parent: it travels over IPC as a plain number array.
 */
export const MIN_MS = 0.01;
export const GROWTH = 1.05;
const LOG_GROWTH = Math.log(GROWTH);
export const BUCKETS = 330;

export function emptyHistogram(): number[] {
  return new Array<number>(BUCKETS).fill(0);
}

export function record(histogram: number[], ms: number): void {
  const index =
    ms <= MIN_MS ? 0 : Math.min(BUCKETS - 1, Math.ceil(Math.log(ms / MIN_MS) / LOG_GROWTH));
  histogram[index] = (histogram[index] ?? 0) + 1;
}

export function merge(into: number[], from: readonly number[]): void {
  for (let i = 0; i < BUCKETS; i += 1) into[i] = (into[i] ?? 0) + (from[i] ?? 0);
}

export function count(histogram: readonly number[]): number {
  let total = 0;
  for (const value of histogram) total += value;
  return total;
}

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
