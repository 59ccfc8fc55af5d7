import type { Browser, Page } from 'playwright-core';
import { rawRequest } from '@taco/harness';

/** 1 KB = 1000 bytes. The JS and CSS of a first load, as a browser that offers brotli gets them. */
export const BROTLI_BUDGET = 125_000;
/** The same files for a client that offers only gzip. */
export const GZIP_BUDGET = 150_000;
/** First contentful paint of `/` under Slow 4G and a 4× slower CPU, median of 3 cold loads. */
export const FCP_BUDGET_MS = 2500;

/** The pages whose first load is measured: the create form and a room's shared link. */
export const MEASURED_PAGES = ['/', '/r/teal-otter'] as const;

/**
 * Chrome DevTools' "Slow 4G" preset: 1.6 Mbps down and 750 kbps up at 90 %, a 150 ms RTT times
 * 3.75 (DevTools' adjustment factors), i.e. 180,000 B/s down, 84,375 B/s up, 562.5 ms latency.
 */
export const SLOW_4G = {
  offline: false,
  latency: 150 * 3.75,
  downloadThroughput: ((1.6 * 1000 * 1000) / 8) * 0.9,
  uploadThroughput: ((750 * 1000) / 8) * 0.9,
} as const;
/** DevTools' "4× slowdown". */
export const CPU_SLOWDOWN = 4;

const ASSET_TYPES = new Set(['script', 'stylesheet']);

/** `run` on a page of a fresh browser context (an empty cache), closed afterwards. */
async function inFreshContext<T>(browser: Browser, run: (page: Page) => Promise<T>): Promise<T> {
  const context = await browser.newContext();
  try {
    return await run(await context.newPage());
  } finally {
    await context.close();
  }
}

/**
 * A GET of `url` offering only `acceptEncoding`: its Content-Encoding ('' when none) and the body
 * bytes as they travel (compressed when `encoding` is set).
 */
export async function transfer(url: string, acceptEncoding: string) {
  const res = await rawRequest(url, { headers: { 'Accept-Encoding': acceptEncoding } });
  const encoding = String(res.headers['content-encoding'] ?? '');
  return { ...res, encoding, bytes: res.body.length };
}

/** The Accept-Encoding of each sum: Chromium's own (brotli), gzip only, uncompressed. */
const ACCEPT = { brotli: 'gzip, deflate, br, zstd', gzip: 'gzip', raw: 'identity' } as const;

export type PageWeight = { path: string; assets: string[] } & Record<keyof typeof ACCEPT, number>;

/**
 * What the first load of `path` transfers in JS and CSS, per encoding: the same-origin JS and CSS
 * a cold browser fetches until the network is idle, each fetched again with each Accept-Encoding.
 */
export async function pageWeight(
  browser: Browser,
  origin: string,
  path: string,
): Promise<PageWeight> {
  const assets = await inFreshContext(browser, async (page) => {
    const urls = new Set<string>();
    page.on('request', (request) => {
      if (ASSET_TYPES.has(request.resourceType()) && request.url().startsWith(origin)) {
        urls.add(request.url());
      }
    });
    await page.goto(`${origin}${path}`, { waitUntil: 'networkidle', timeout: 30_000 });
    return [...urls].sort();
  });
  const weight: PageWeight = { path, assets, brotli: 0, gzip: 0, raw: 0 };
  for (const url of assets) {
    for (const key of ['brotli', 'gzip', 'raw'] as const) {
      weight[key] += (await transfer(url, ACCEPT[key])).bytes;
    }
  }
  return weight;
}

/**
 * First contentful paint of a cold load of `url` (a fresh browser context, so an empty cache)
 * under Slow 4G and a 4× slower CPU, in milliseconds.
 */
export function throttledFcp(browser: Browser, url: string): Promise<number> {
  return inFreshContext(browser, async (page) => {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', SLOW_4G);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
    await page.goto(url, { waitUntil: 'load', timeout: 60_000 });
    const fcp = await page.waitForFunction(
      () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? false,
      undefined,
      { timeout: 30_000 },
    );
    return Math.round((await fcp.jsonValue()) as number);
  });
}
