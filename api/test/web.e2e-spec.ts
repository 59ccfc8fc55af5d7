import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type TestApp } from './support/test-app';

describe('Serving the web client', () => {
  let t: TestApp;
  const dist = mkdtempSync(join(tmpdir(), 'taco-web-'));

  beforeAll(async () => {
    writeFileSync(
      join(dist, 'index.html'),
      '<!doctype html><title>Taco Chat</title><div id="root"></div>',
    );
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'assets', 'app-1234.js'), 'console.log("taco")');
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
});
