import { join, resolve } from 'node:path';

/** The repository root (this file is infra/harness/src/environment.ts). */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..');
export const REDIS_CONF = join(REPO_ROOT, 'infra', 'redis', 'redis.conf');

/** `redis-server` with the repository's redis.conf, overridden for one loopback port and folder. */
export function redisServerArgs(port: number, dir: string): string[] {
  return [
    REDIS_CONF,
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--protected-mode',
    'yes',
    '--dir',
    dir,
    '--appendonly',
    'yes',
    '--save',
    '',
    '--maxmemory',
    '256mb',
  ];
}

/** The little of this process's environment a child needs; everything else is set on purpose. */
export function baseEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const key of ['PATH', 'HOME', 'LANG', 'TZ', 'SYSTEMROOT']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return env;
}
