import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../cluster/cluster';

const run = promisify(execFile);
const COMPOSE_FILE = join(REPO_ROOT, 'docker-compose.yml');
const SECRET = 'compose-test-secret-that-is-long-enough-0123456789';

/** `docker-compose [args]` on the repository's compose file (v1.29 as CI installs it). */
function compose(args: string[], env: NodeJS.ProcessEnv) {
  return run('docker-compose', ['-f', COMPOSE_FILE, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    timeout: 30_000,
  });
}

describe('docker-compose.yml', () => {
  it('is accepted by docker-compose config, with the loadtest profile', async () => {
    const { stdout } = await compose(['--profile', 'loadtest', 'config'], { JWT_SECRET: SECRET });
    for (const service of ['redis:', 'api:', 'nginx:', 'k6:']) expect(stdout).toContain(service);
    expect(stdout).toContain('REDIS_URL: redis://redis:6379');
    expect(stdout).toContain(`JWT_SECRET: ${SECRET}`);
    expect(stdout).toMatch(/WEB_DIST: ["']?off/);
    expect(stdout).toContain('TRUST_PROXY: 172.29.80.0/24');
    expect(stdout).toMatch(/replicas: 3/);
    expect(stdout).toMatch(/scale: 3/);
    expect(stdout).toMatch(/published: 8080\s+target: 80/);
    expect(stdout).toMatch(/profiles:\s+- loadtest/);
    expect(stdout).toContain('/scripts/k6/chat.js');
  });

  it('lists the services', async () => {
    const { stdout } = await compose(['config', '--services'], { JWT_SECRET: SECRET });
    expect(stdout.split('\n').filter(Boolean).sort()).toEqual(
      expect.arrayContaining(['api', 'nginx', 'redis']),
    );
  });

  it('refuses to run without JWT_SECRET, saying what to set', async () => {
    await expect(compose(['config'], {})).rejects.toMatchObject({
      stderr: expect.stringContaining('set JWT_SECRET to 32+ random bytes'),
    });
  });
});
