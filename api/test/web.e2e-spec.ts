import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { rawRequest } from '@taco/harness';
import { acceptedEncodings } from '../src/web/serve-web';
import { startTestApp, type TestApp } from './support/test-app';

const SCRIPT = `console.log(${JSON.stringify('taco '.repeat(200))});`;

describe('Serving the web client', () => {
  let t: TestApp;
  const dist = mkdtempSync(join(tmpdir(), 'taco-web-'));

  const readIndex = () => '<!doctype html><title>Taco Chat</title><div id="root"></div>';

  beforeAll(async () => {
    writeFileSync(join(dist, 'index.html'), readIndex());
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'assets', 'app-1234.js'), 'console.log("taco")');
    // What the build writes: a script with its brotli and gzip twins, and (left behind) a map.
    writeFileSync(join(dist, 'assets', 'index-abcd.js'), SCRIPT);
    writeFileSync(join(dist, 'assets', 'index-abcd.js.br'), brotliCompressSync(SCRIPT));
    writeFileSync(join(dist, 'assets', 'index-abcd.js.gz'), gzipSync(SCRIPT));
    writeFileSync(join(dist, 'assets', 'index-abcd.js.map'), '{"version":3,"sources":[]}');
    writeFileSync(join(dist, 'index.html.gz'), gzipSync(readIndex()));
    t = await startTestApp({ webDist: dist });
  });
  afterAll(() => t.close());

  it.each(['/', '/a', '/r/teal-otter', '/r/caf%C3%A9-owl', '/some/unknown/page'])(
    'serves the app at %s',
    async (path) => {
      const response = await fetch(`${t.baseUrl}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(await response.text()).toContain('<div id="root">');
    },
  );

  it.each([
    ['a null byte', '/%00'],
    ['a null byte in a room link', '/r/abc%00'],
    ['a file used as a folder', '/index.html/x'],
    ['a name longer than the file system allows', `/${'a'.repeat(5000)}`],
    ['a path deeper than the file system allows', `/${'a/'.repeat(3000)}`],
  ])('serves the app, never a 500, for %s', async (_what, path) => {
    const response = await fetch(`${t.baseUrl}${path}`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<div id="root">');
  });

  it.each([
    ['a null byte', '/assets/%00x'],
    ['a long name', `/assets/${'a'.repeat(5000)}.js`],
    ['a slash after a file', '/assets/app-1234.js/'],
  ])('answers an asset with %s 404, not a 500', async (_what, path) => {
    expect((await fetch(`${t.baseUrl}${path}`)).status).toBe(404);
  });

  it.each([
    ['a null byte', '/api/room/abc%00', 400],
    ['a long room name', `/api/room/${'a'.repeat(5000)}`, 400],
    ['a long unknown path', `/api/${'a'.repeat(5000)}`, 404],
  ])('answers an API path with %s by the API, never a 500', async (_what, path, status) => {
    const response = await fetch(`${t.baseUrl}${path}`);
    expect(response.status).toBe(status);
  });

  it('serves hashed assets with a long cache life', async () => {
    const response = await fetch(`${t.baseUrl}/assets/app-1234.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toContain('immutable');
  });

  it('answers a missing asset with 404, not the app', async () => {
    const response = await fetch(`${t.baseUrl}/assets/missing.js`);
    expect(response.status).toBe(404);
  });

  it('keeps /api paths for the API', async () => {
    const response = await fetch(`${t.baseUrl}/api/unknown`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ statusCode: 404 });
  });

  it('sends brotli to a browser that offers it, with the type, length and Vary of the file', async () => {
    const response = await rawRequest(`${t.baseUrl}/assets/index-abcd.js`, {
      headers: {
        'Accept-Encoding': 'gzip, deflate, br, zstd',
      },
    });
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBe('br');
    expect(response.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(response.headers.vary).toMatch(/Accept-Encoding/i);
    expect(Number(response.headers['content-length'])).toBe(response.body.length);
    expect(response.body.length).toBeLessThan(SCRIPT.length / 4);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(brotliDecompressSync(response.body).toString()).toBe(SCRIPT);
  });

  it('sends gzip to a client that offers only gzip', async () => {
    const response = await rawRequest(`${t.baseUrl}/assets/index-abcd.js`, {
      headers: {
        'Accept-Encoding': 'gzip',
      },
    });
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.headers.vary).toMatch(/Accept-Encoding/i);
    expect(gunzipSync(response.body).toString()).toBe(SCRIPT);
  });

  it.each([
    ['no Accept-Encoding', {}],
    ['identity only', { 'Accept-Encoding': 'identity' }],
    ['both refused with q=0', { 'Accept-Encoding': 'br;q=0, gzip;q=0, deflate' }],
  ])('sends the file as it is with %s', async (_case, headers: Record<string, string>) => {
    const response = await rawRequest(`${t.baseUrl}/assets/index-abcd.js`, { headers });
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.headers.vary).toMatch(/Accept-Encoding/i);
    expect(response.body.toString()).toBe(SCRIPT);
    expect(Number(response.headers['content-length'])).toBe(SCRIPT.length);
  });

  it('sends a page compressed when the build has a twin for it, still not cached', async () => {
    const response = await rawRequest(`${t.baseUrl}/r/teal-otter`, {
      headers: { 'Accept-Encoding': 'br, gzip' },
    });
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(gunzipSync(response.body).toString()).toBe(readIndex());
  });

  it('never serves a source map', async () => {
    const response = await rawRequest(`${t.baseUrl}/assets/index-abcd.js.map`);
    expect(response.status).toBe(404);
    expect(response.body.toString()).not.toContain('"version"');
  });

  it('reads Accept-Encoding by its q-values, with * for codings it does not name', () => {
    expect([...acceptedEncodings('gzip, deflate, br, zstd')].sort()).toEqual(['br', 'gzip']);
    expect([...acceptedEncodings('gzip;q=0.5, br;q=0')]).toEqual(['gzip']);
    expect([...acceptedEncodings('*')].sort()).toEqual(['br', 'gzip']);
    expect([...acceptedEncodings('*, br;q=0')]).toEqual(['gzip']);
    expect([...acceptedEncodings(' GZIP ; Q=1 ')]).toEqual(['gzip']);
    expect([...acceptedEncodings(undefined)]).toEqual([]);
    expect([...acceptedEncodings('')]).toEqual([]);
  });
});
