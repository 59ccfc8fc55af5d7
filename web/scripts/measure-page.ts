/**
 * `npm run measure:page`: builds, starts the built server on a free port and measures the first
 * load of `/` and `/r/{room}` in /usr/bin/chromium: the JS and CSS bytes transferred with brotli,
 * with gzip only and uncompressed, and the first contentful paint under DevTools' Slow 4G with
 * the CPU slowed 4× (median of 3 cold loads). Exits 1 when a figure is over its budget.
 */
import { freePorts, percentile } from '@taco/harness';
import {
  BROTLI_BUDGET,
  CPU_SLOWDOWN,
  FCP_BUDGET_MS,
  GZIP_BUDGET,
  MEASURED_PAGES,
  pageWeight,
  SLOW_4G,
  throttledFcp,
} from '../e2e/page-weight';
import { launchBrowser, ServerProcess } from '../e2e/support';

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
      const weight = await pageWeight(browser, server.origin, path);
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
      for (let i = 0; i < RUNS; i++) runs.push(await throttledFcp(browser, server.origin + path));
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
