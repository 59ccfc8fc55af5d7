/**
 * The latency probe a benchmark message carries in its body, the same shape the k6 scripts send
 * (`{"t":<send time ms>,"n":<number>,"p":"xxx…"}`) plus `s`, the step it belongs to, so a late
 * message of one step never counts for the next.
 */

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

export function probeBody(step: number, n: number, bytes: number): string {
  const t = Math.round(nowMs() * 1000) / 1000;
  const pad = Math.max(0, bytes - JSON.stringify({ t, n, s: step, p: '' }).length);
  return JSON.stringify({ t, n, s: step, p: 'x'.repeat(pad) });
}

export interface Probe {
  t: number;
  s: number;
}

/** The probe in a body, or null when the body is not one. */
export function readProbe(body: unknown): Probe | null {
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
