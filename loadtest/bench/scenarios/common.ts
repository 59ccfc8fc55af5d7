/** What the bench's scenarios (slow reader, reconnect storm, connect cost) share: one shape. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { intOption, sum } from '@taco/harness';
import { cpus, totalmem } from 'node:os';

export { intOption, sum };

/** A number above 0 and at most `max` from an option's text, `fallback` when not given. */
export function positive(name: string, text: string | undefined, fallback: number, max: number) {
  const value = Number(text ?? fallback);
  if (value > 0 && value <= max) return value;
  throw new Error(`${name} must be a number above 0 and at most ${max} (got "${text}")`);
}

/** The command line's string options, by name. */
export type Values = Partial<Record<string, string>>;

/** A whole-number option: its flag, default, default with `--smoke`, least and greatest value. */
type IntOption = readonly [flag: string, fallback: number, smoke: number, min: number, max: number];

/**
 * A scenario run by `--only <name>`: its whole-number options by setting name (`ints`), its other
 * options (`flags`), and `measure`, which runs it and returns its figures, written as JSON to
 * `--out` (default loadtest/results/<file>-latest.json); `verdict` may fail the run after that.
 */
export interface Scenario<K extends string, R> {
  file: string;
  ints: Record<K, IntOption>;
  flags?: string[];
  measure(settings: Record<K, number>, values: Values, smoke: boolean): Promise<R>;
  verdict?(report: R): void;
}

/** The options a scenario takes: its own, and `--only`, `--out` and `--smoke` (tiny sizes). */
export const scenarioFlags = (scenario: Scenario<string, unknown>): string[] => [
  ...Object.values<IntOption>(scenario.ints).map(([flag]) => flag),
  ...(scenario.flags ?? []),
  ...['only', 'out', 'smoke'],
];

export async function runScenario<K extends string, R>(
  scenario: Scenario<K, R>,
  values: Values,
  smoke: boolean,
): Promise<void> {
  const settings = mapValues<IntOption, number>(scenario.ints, ([flag, fallback, tiny, min, max]) =>
    intOption(flag, values[flag], smoke ? tiny : fallback, min, max),
  ) as Record<K, number>;
  const report = await scenario.measure(settings, values, smoke);
  log(`JSON: ${writeJson(values.out, `${scenario.file}-latest.json`, report)}`);
  scenario.verdict?.(report);
}

/** Writes a report as JSON to `out`, by default to loadtest/results/`name`; returns the path. */
export function writeJson(out: string | undefined, name: string, report: unknown): string {
  const path = resolve(out ?? resolve(__dirname, '..', '..', 'results', name));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  return path;
}

/** What every scenario's report starts with. */
export const stamp = (scenario: string) => ({
  scenario,
  date: new Date().toISOString(),
  machine: machine(),
});

/** The machine a run measured on. */
export function machine() {
  const cpu = cpus();
  return {
    cpus: cpu.length,
    cpuModel: cpu[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

/** `record` with each value mapped by `map` (given the value and its key). */
export const mapValues = <T, U>(record: Record<string, T>, map: (value: T, key: string) => U) =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value, key)]));

export const log = (line: string): void => console.log(line);
