/** The built server and the browser, for the browser suites and web/scripts/measure-page.ts. */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { httpStatus, ManagedProcess, waitFor } from '@taco/harness';

export const REPO = resolve(__dirname, '../..');
export const SERVER_MAIN = join(REPO, 'api/dist/main.js');
export const WEB_DIST = join(REPO, 'web/dist');

/** The real built server as a child process. */
export class ServerProcess {
  private readonly child: ManagedProcess;

  constructor(readonly port: number) {
    this.child = new ManagedProcess({
      name: 'server',
      command: process.execPath,
      args: [SERVER_MAIN],
      cwd: REPO,
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', WEB_DIST },
      output: 'quiet',
    });
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts the server (again, after `stop`) and waits until it is ready. */
  async start(): Promise<void> {
    for (const path of [SERVER_MAIN, join(WEB_DIST, 'index.html')]) {
      if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` first`);
    }
    this.child.start();
    await waitFor(
      `the server ready on port ${this.port}`,
      async () => (await httpStatus(`${this.origin}/api/health/ready`)) === 200,
      { timeoutMs: 15_000, abort: () => (this.child.isRunning ? undefined : 'it exited') },
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}:\n${this.child.lines.slice(-100).join('\n')}`);
    });
  }

  /** SIGTERM, then SIGKILL after 10 s. */
  async stop(): Promise<void> {
    await this.child.stop('SIGTERM', 10_000);
  }
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
