/** The built server and the browser, for the browser suites and web/scripts/measure-page.ts. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { API_ENTRY, DEFAULT_WEB_DIST, httpStatus, REPO_ROOT, Service } from '@taco/harness';

/** The real built server as a child process; `start()` (again, after `stop()`) waits until ready. */
export class ServerProcess extends Service {
  constructor(port: number) {
    const origin = `http://127.0.0.1:${port}`;
    super({
      name: 'server',
      command: process.execPath,
      args: [API_ENTRY],
      cwd: REPO_ROOT,
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', WEB_DIST: DEFAULT_WEB_DIST },
      port,
      url: origin,
      ready: async () => (await httpStatus(`${origin}/api/health/ready`)) === 200,
      startTimeoutMs: 15_000,
    });
  }

  override async start(): Promise<void> {
    for (const path of [API_ENTRY, join(DEFAULT_WEB_DIST, 'index.html')]) {
      if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` first`);
    }
    await super.start().catch((error: unknown) => {
      throw new Error(`${String(error)}:\n${this.lines.slice(-100).join('\n')}`);
    });
  }

  override stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000) {
    return super.stop(signal, graceMs);
  }
}

/** Playwright's own switches already make it headless, unsandboxed, quiet (no updates, sync…). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--disable-gpu', '--disable-quic'],
  });
}
