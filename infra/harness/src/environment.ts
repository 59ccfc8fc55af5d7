import { join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** The repository root (this file is infra/harness/src/environment.ts). */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..');
export const REDIS_CONF = join(REPO_ROOT, 'infra', 'redis', 'redis.conf');

/** The variables of this process's environment among `keys` that are set. */
export function pickEnvironment(keys: readonly string[]): Record<string, string> {
  const set = keys.filter((key) => process.env[key] !== undefined);
  return Object.fromEntries(set.map((key) => [key, process.env[key] as string]));
}

/** The little of this process's environment a child needs; everything else is set on purpose. */
export const baseEnvironment = (): NodeJS.ProcessEnv =>
  pickEnvironment(['PATH', 'HOME', 'LANG', 'TZ', 'SYSTEMROOT']);

/** A whole number option between `min` and `max` (`--name`), or `fallback` when not given. */
export function intOption<F extends number | undefined>(
  name: string,
  text: string | undefined,
  fallback: F,
  min: number,
  max: number,
): number | F {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`--${name} must be a whole number from ${min} to ${max} (got "${text}")`);
  }
  return value;
}

/**
 * A command-line entry point: with `--help` (an option of `options`) prints `usage`, else runs
 * `main` with the parsed options. An error, a bad option's too, is printed, exit code 1.
 */
export function runCli<O extends NonNullable<ParseArgsConfig['options']>>(
  usage: string,
  options: O,
  main: (values: ReturnType<typeof parseArgs<{ options: O }>>['values']) => Promise<void>,
): void {
  const run = async () => {
    const { values } = parseArgs({ options });
    if ('help' in values && values.help === true) process.stdout.write(`${usage}\n`);
    else await main(values);
  };
  run().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
