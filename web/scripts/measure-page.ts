/**
 * `npm run measure:page`: builds, starts the built server on a free port and measures the first
 * load of `/` and `/r/{room}` in /usr/bin/chromium: the JS and CSS bytes transferred with brotli,
 * with gzip only and uncompressed, and the first contentful paint under DevTools' Slow 4G with
 * the CPU slowed 4× (median of 3 cold loads). Exits 1 when a figure is over its budget.
 */
import type { Browser } from 'playwright-core';
import { freePorts, percentile } from '@taco/harness';
import { BROTLI_BUDGET, GZIP_BUDGET, MEASURED_PAGES, pageWeight } from '../e2e/page-weight';
import { launchBrowser, ServerProcess } from '../e2e/support';

/** First contentful paint of `/` under Slow 4G and a 4× slower CPU, median of 3 cold loads. */
const FCP_BUDGET_MS = 2500;
/** DevTools' "Slow 4G": 1.6 Mbps down, 750 kbps up at 90 %, 150 ms RTT × 3.75 (its factors). */
const SLOW_4G = {
  offline: false,
  latency: 150 * 3.75,
  downloadThroughput: ((1.6 * 1000 * 1000) / 8) * 0.9,
  uploadThroughput: ((750 * 1000) / 8) * 0.9,
} as const;
const CPU_SLOWDOWN = 4; // DevTools' "4× slowdown"

/** First contentful paint (ms) of a cold load of `url`: a page of its own context (empty cache). */
async function throttledFcp(browser: Browser, url: string): Promise<number> {
  const page = await browser.newPage();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', SLOW_4G);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
  await page.goto(url, { waitUntil: 'load', timeout: 60_000 });
  const fcp = await page.waitForFunction(
    () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? false,
  );
  const startTime = (await fcp.jsonValue()) as number;
  await page.close();
  return Math.round(startTime);
}

const RUNS = 3;
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;

async function main(): Promise<boolean> {
  const [port = 0] = await freePorts(1);
  const server = new ServerProcess(port);
  await server.start();
  const browser = await launchBrowser();
  let ok = true;
  try {
    console.log('JS + CSS of the first load (1 KB = 1000 bytes; response bodies as sent)');
    for (const path of MEASURED_PAGES) {
      const weight = await pageWeight(browser, server.url, path);
      const over = weight.brotli > BROTLI_BUDGET || weight.gzip > GZIP_BUDGET;
      ok &&= !over;
      console.log(
        `  ${path.padEnd(14)} brotli ${kb(weight.brotli)} (≤ ${kb(BROTLI_BUDGET)})` +
          `  gzip ${kb(weight.gzip)} (≤ ${kb(GZIP_BUDGET)})  uncompressed ${kb(weight.raw)}` +
          `  ${weight.assets.length} files${over ? '  OVER BUDGET' : ''}`,
      );
    }
    console.log(
      `First contentful paint, Slow 4G (${SLOW_4G.latency} ms, ${SLOW_4G.downloadThroughput} B/s ` +
        `down, ${SLOW_4G.uploadThroughput} B/s up), CPU ${CPU_SLOWDOWN}× slower, ${RUNS} cold loads`,
    );
    for (const path of MEASURED_PAGES) {
      const runs: number[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(await throttledFcp(browser, server.url + path));
      const fcp = percentile(runs, 50) ?? 0; // the median of an odd count
      const over = path === '/' && fcp > FCP_BUDGET_MS;
      ok &&= !over;
      console.log(
        `  ${path.padEnd(14)} median ${fcp} ms (runs ${runs.join(', ')} ms)` +
          `${path === '/' ? ` (≤ ${FCP_BUDGET_MS} ms)` : ''}${over ? '  OVER BUDGET' : ''}`,
      );
    }
  } finally {
    await browser.close();
    await server.stop();
  }
  return ok;
}

// A failure is an unhandled rejection: Node prints it and exits with 1.
void main().then((ok) => process.exit(ok ? 0 : 1));
