import { join, resolve } from 'node:path';

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
