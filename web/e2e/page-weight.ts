import type { Browser } from 'playwright-core';
import { rawRequest } from '@taco/harness';

/** 1 KB = 1000 bytes. The JS and CSS of a first load, as a browser that offers brotli gets them. */
export const BROTLI_BUDGET = 125_000;
/** The same files for a client that offers only gzip. */
export const GZIP_BUDGET = 150_000;

/** The pages whose first load is measured: the create form and a room's shared link. */
export const MEASURED_PAGES = ['/', '/r/teal-otter'] as const;

/**
 * A GET of `url` offering only `acceptEncoding`, with its Content-Encoding ('' when none); the body
 * is as it travels (compressed when `encoding` is set).
 */
export async function transfer(url: string, acceptEncoding: string) {
  const res = await rawRequest(url, { headers: { 'Accept-Encoding': acceptEncoding } });
  return { ...res, encoding: String(res.headers['content-encoding'] ?? '') };
}

/** The Accept-Encoding of each sum: Chromium's own (brotli), gzip only, uncompressed. */
const ACCEPT = { brotli: 'gzip, deflate, br, zstd', gzip: 'gzip', raw: 'identity' } as const;

export type PageWeight = { path: string; assets: string[] } & Record<keyof typeof ACCEPT, number>;

/**
 * What the first load of `path` transfers in JS and CSS, per encoding: the same-origin JS and CSS
 * a cold browser fetches until the network is idle, each fetched again with each Accept-Encoding.
 */
export async function pageWeight(browser: Browser, origin: string, path: string) {
  // A page of its own browser context (an empty cache); closing the page closes the context.
  const page = await browser.newPage();
  const urls = new Set<string>();
  page.on('request', (request) => {
    const asset = ['script', 'stylesheet'].includes(request.resourceType());
    if (asset && request.url().startsWith(origin)) urls.add(request.url());
  });
  await page.goto(`${origin}${path}`, { waitUntil: 'networkidle', timeout: 30_000 });
  await page.close();
  const weight: PageWeight = { path, assets: [...urls].sort(), brotli: 0, gzip: 0, raw: 0 };
  for (const url of weight.assets) {
    for (const key of ['brotli', 'gzip', 'raw'] as const) {
      weight[key] += (await transfer(url, ACCEPT[key])).body.length;
    }
  }
  return weight;
}
