const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * The longest duration taken: ten years. Longer ones are typing slips, and past what Redis takes
 * as an expiry (`SET … EX`) they would fail every write instead of the boot.
 */
export const DURATION_MAX_MS = 3650 * 86_400_000;

/**
 * Parses a duration such as `90s`, `15m`, `24h`, `7d` or `250ms`; a bare number means seconds.
 * Returns milliseconds, or `null` when the text is not a positive duration of at most
 * `DURATION_MAX_MS`.
 */
export function parseDuration(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!match?.[1]) return null;
  const value = Number(match[1]) * (UNIT_MS[match[2] ?? 's'] ?? 1000);
  return Number.isFinite(value) && value >= 1 && value <= DURATION_MAX_MS
    ? Math.round(value)
    : null;
}
