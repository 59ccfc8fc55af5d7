import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { sleep } from '@taco/harness';

export const REPO = resolve(__dirname, '../..');
export const SERVER_MAIN = join(REPO, 'api/dist/main.js');
export const WEB_DIST = join(REPO, 'web/dist');
export const SCREENSHOTS = join(REPO, 'artifacts/screenshots');
/** Screenshots of the app's states that are committed, to be looked at in review. */
export const COMMITTED_SCREENSHOTS = join(REPO, 'web/e2e/screenshots');

/** The real built server as a child process. */
export class ServerProcess {
  private child: ChildProcess | null = null;
  private output = '';

  constructor(readonly port: number) {}

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    for (const path of [SERVER_MAIN, join(WEB_DIST, 'index.html')]) {
      if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` first`);
    }
    const child = spawn(process.execPath, [SERVER_MAIN], {
      cwd: REPO,
      env: { ...process.env, PORT: String(this.port), HOST: '127.0.0.1', WEB_DIST },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-20_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    for (let i = 0; i < 150; i++) {
      if (child.exitCode !== null) break;
      try {
        const response = await fetch(`${this.origin}/api/health/ready`);
        if (response.ok) return;
      } catch {
        // Not listening yet.
      }
      await sleep(100);
    }
    throw new Error(`The server did not become ready on port ${this.port}:\n${this.output}`);
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
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

/** Saves a screenshot of the page as a test artifact (or into `dir`). */
export async function snap(page: Page, name: string, dir = SCREENSHOTS): Promise<void> {
  mkdirSync(dir, { recursive: true });
  // Entrances (a dialog settling, a drawer sliding in) are shown as they end.
  await page.screenshot({ path: join(dir, `${name}.png`), animations: 'disabled' });
}

/** The impacts that fail a test: axe's `serious` and `critical`. */
const FAILING_IMPACTS = new Set(['serious', 'critical']);

interface AxeResults {
  violations: {
    id: string;
    impact?: string | null;
    help: string;
    nodes: { target: unknown[]; failureSummary?: string }[];
  }[];
}

/**
 * Runs axe-core (from node_modules) on the page as it is now and returns its serious and critical
 * findings, one line each ("rule: help — selector: summary"); an empty list means none. The
 * page's context needs `bypassCSP: true`, since axe is injected as an inline script.
 */
export async function axeFindings(page: Page): Promise<string[]> {
  const loaded = await page.evaluate(() => 'axe' in window);
  if (!loaded) await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  const results = await page.evaluate(async () => {
    const { axe } = window as unknown as {
      axe: { run: (context: Document, options: object) => Promise<unknown> };
    };
    return (await axe.run(document, { resultTypes: ['violations'] })) as AxeResults;
  });
  return results.violations
    .filter((violation) => FAILING_IMPACTS.has(violation.impact ?? ''))
    .flatMap((violation) =>
      violation.nodes.map(
        (node) =>
          `${violation.id} (${violation.impact}): ${violation.help} — ${node.target.join(' ')}: ${
            node.failureSummary?.replace(/\s+/g, ' ') ?? ''
          }`,
      ),
    );
}

/** Collects what the page reports as errors: console errors and uncaught exceptions. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}
