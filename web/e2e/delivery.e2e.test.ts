import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { DEFAULT_WEB_DIST as WEB_DIST, freePorts } from '@taco/harness';
import {
  BROTLI_BUDGET,
  GZIP_BUDGET,
  MEASURED_PAGES,
  pageWeight,
  type PageWeight,
  transfer,
} from './page-weight';
import { launchBrowser, ServerProcess } from './support';

// Bytes only: they are the same on every run. The first paint under throttling is timing, which
// `npm run measure:page` reports instead of a test asserting it.
jest.setTimeout(120_000);

let server: ServerProcess;
let browser: Browser;
const weights = new Map<string, PageWeight>();

beforeAll(async () => {
  const [port = 0] = await freePorts(1);
  server = new ServerProcess(port);
  await server.start();
  browser = await launchBrowser();
  for (const path of MEASURED_PAGES) {
    weights.set(path, await pageWeight(browser, server.url, path));
  }
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('Delivery of the page (the built client from the api)', () => {
  it.each(MEASURED_PAGES)('keeps the first load of %s within the byte budgets', (path) => {
    const weight = weights.get(path);
    expect(weight?.assets.some((url) => url.endsWith('.js'))).toBe(true);
    expect(weight?.assets.some((url) => url.endsWith('.css'))).toBe(true);
    expect(weight?.brotli).toBeLessThanOrEqual(BROTLI_BUDGET);
    expect(weight?.gzip).toBeLessThanOrEqual(GZIP_BUDGET);
  });

  it('sends every script and style compressed, long-cached, with Vary', async () => {
    const assets = [...new Set([...weights.values()].flatMap((weight) => weight.assets))];
    for (const url of assets) {
      const brotli = await transfer(url, 'gzip, deflate, br');
      expect([url, brotli.encoding]).toEqual([url, 'br']);
      expect(brotli.headers.vary).toMatch(/Accept-Encoding/i);
      const maxAge = /max-age=(\d+)/.exec(String(brotli.headers['cache-control']))?.[1];
      expect(Number(maxAge)).toBeGreaterThanOrEqual(30 * 24 * 60 * 60);
      expect(brotli.headers['cache-control']).toContain('immutable');
      expect((await transfer(url, 'gzip')).encoding).toBe('gzip');
      expect((await transfer(url, 'identity')).encoding).toBe('');
    }
  });

  it('serves the page itself uncached, so a new build is picked up at once', async () => {
    for (const path of MEASURED_PAGES) {
      const page = await transfer(`${server.url}${path}`, 'br');
      expect(page.status).toBe(200);
      expect(page.headers['cache-control']).toBe('no-cache');
    }
  });

  it('publishes no source map: none in the build, none served, no reference in a script', async () => {
    const files = readdirSync(join(WEB_DIST, 'assets'));
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    for (const file of files.filter((name) => name.endsWith('.js'))) {
      expect(readFileSync(join(WEB_DIST, 'assets', file), 'utf8')).not.toContain(
        'sourceMappingURL',
      );
      const map = await transfer(`${server.url}/assets/${file}.map`, 'identity');
      expect(map.status).toBe(404);
    }
  });

  it('allows the inline colour-mode script by its hash in the Content-Security-Policy', async () => {
    const html = readFileSync(join(WEB_DIST, 'index.html'), 'utf8');
    const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(([, body]) => body);
    expect(inline).toHaveLength(1);
    const hash = createHash('sha256')
      .update(inline[0] ?? '')
      .digest('base64');
    const page = await transfer(`${server.url}/`, 'identity');
    const scriptSrc = /script-src ([^;]*)/.exec(String(page.headers['content-security-policy']));
    expect(scriptSrc?.[1]?.split(' ')).toEqual(["'self'", `'sha256-${hash}'`]);
  });

  it("shows a reload, not a blank screen, when a page's code cannot be fetched", async () => {
    // As after a deploy that replaced the build an open tab still points at, or a dropped line.
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.route(/\/assets\/RoomPage-[^/]*\.js$/, (route) => route.fulfill({ status: 404 }));
    await page.goto(`${server.url}/r/teal-otter`);
    const alert = page.getByRole('alert');
    await alert.getByText('This page could not be shown').waitFor();
    await page.getByRole('link', { name: 'My Account' }).waitFor();
    await page.unroute(/\/assets\/RoomPage-[^/]*\.js$/);
    await alert.getByRole('button', { name: 'Reload page' }).click();
    await page.getByRole('dialog').getByLabel('Username').waitFor();
    await context.close();
  });
});
