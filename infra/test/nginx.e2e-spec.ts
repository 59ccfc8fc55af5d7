import { execFileSync, spawnSync } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gzipSync } from 'node:zlib';
import WebSocket from 'ws';
import {
  findExecutable,
  freePorts,
  httpStatus,
  ManagedProcess,
  nginxUser,
  rawRequest,
  waitFor,
} from '@taco/harness';
import { securityHeaders } from '@taco/protocol';
import {
  API_UNAVAILABLE_BODY,
  dockerNginxConfig,
  renderNginxConfig,
} from '../nginx/render-nginx-config';

const NGINX = findExecutable('nginx');
const SECRET = 'SECRET123';
const CONTROL = 'CONTROL789';

/** Tries a WebSocket upgrade and resolves with the HTTP status nginx answered instead. */
function refusedUpgrade(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error(`no answer to ${url}`));
    }, 10_000);
    socket.on('unexpected-response', (_request, response) => {
      clearTimeout(timer);
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.on('open', () => {
      clearTimeout(timer);
      socket.terminate();
      reject(new Error('the upgrade unexpectedly succeeded'));
    });
    socket.on('error', () => undefined);
  });
}

/** nginx in the foreground on a free port, rendered from the template for one upstream. */
async function startNginx(
  root: string,
  upstream: string,
  logs: { accessLog: string; errorLog: string },
): Promise<{ nginx: ManagedProcess; base: string }> {
  const [port = 0] = await freePorts(1);
  const configPath = join(root, 'nginx.conf');
  writeFileSync(
    configPath,
    renderNginxConfig({
      listen: `127.0.0.1:${port}`,
      upstreams: [upstream],
      webRoot: join(root, 'www'),
      pidFile: join(root, 'nginx.pid'),
      tempDir: join(root, 'temp'),
      accessLog: logs.accessLog,
      errorLog: logs.errorLog,
      user: nginxUser(),
      foreground: true,
    }),
  );
  const nginx = new ManagedProcess({
    name: 'nginx',
    command: NGINX,
    args: ['-p', root, '-e', logs.errorLog, '-c', configPath],
    cwd: root,
    env: { PATH: process.env.PATH },
    output: 'quiet',
  });
  await nginx.start();
  const base = `127.0.0.1:${port}`;
  await waitFor('nginx', async () => (await httpStatus(`http://${base}/`)) === 200, {
    timeoutMs: 10_000,
    abort: () => (nginx.isRunning ? undefined : nginx.lines.join('\n')),
  });
  return { nginx, base };
}

const BUILT = {
  'index-abcd.js': `console.log(${JSON.stringify('taco chat '.repeat(300))});`,
  'index-abcd.css': `.taco{color:#c2410c}${'.bubble{padding:1rem}'.repeat(100)}`,
};

describe('nginx config', () => {
  const root = mkdtempSync(join(tmpdir(), 'taco-nginx-test-'));
  const www = join(root, 'www');
  const accessLog = join(root, 'access.log');
  const errorLog = join(root, 'error.log');
  const configPath = join(root, 'nginx.conf');
  let nginx: ManagedProcess;
  let base: string;

  beforeAll(async () => {
    // nginx's workers (nobody, when the test runs as root) read the files it serves.
    chmodSync(root, 0o755);
    mkdirSync(join(www, 'assets'), { recursive: true });
    mkdirSync(join(root, 'temp'));
    writeFileSync(join(www, 'index.html'), '<!doctype html><title>Taco Chat</title>');
    writeFileSync(join(www, 'assets', 'app-1234.js'), `console.log(${'"taco";'.repeat(400)});`);
    // What the web build writes: scripts and styles with their brotli and gzip twins.
    for (const [name, content] of Object.entries(BUILT)) {
      writeFileSync(join(www, 'assets', name), content);
      writeFileSync(join(www, 'assets', `${name}.br`), brotliCompressSync(content));
      writeFileSync(join(www, 'assets', `${name}.gz`), gzipSync(content));
    }
    // An upstream port where nothing listens (a replica that died).
    const [deadPort = 0] = await freePorts(1);
    ({ nginx, base } = await startNginx(root, `127.0.0.1:${deadPort}`, { accessLog, errorLog }));
  });

  afterAll(async () => {
    await nginx?.stop('SIGTERM', 5000);
    rmSync(root, { recursive: true, force: true });
  });

  it('is accepted by nginx -t', () => {
    expect(() =>
      execFileSync(NGINX, ['-t', '-p', root, '-e', errorLog, '-c', configPath], {
        stdio: 'pipe',
      }),
    ).not.toThrow();
  });

  it('balances by open connections over all workers: the upstream lives in shared memory', () => {
    const config = readFileSync(configPath, 'utf8');
    expect(config).toMatch(/worker_processes auto;/);
    expect(config).toMatch(/upstream taco_api \{[^}]*least_conn;[^}]*zone taco_api 64k;/);
  });

  it('never writes a room token to the access or error log when a replica is down', async () => {
    // A socket request while its replica is unreachable: nginx answers 502/503 and, at level
    // `error`, would log the whole request line, query string and token included.
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      statuses.push(await refusedUpgrade(`ws://${base}/api/room/teal-otter/ws?token=${SECRET}`));
    }
    statuses.push(await httpStatus(`http://${base}/api/room/teal-otter/ws/?token=${SECRET}`));
    for (const status of statuses) expect([502, 503]).toContain(status);

    // Control: outside the socket location, errors are logged normally, request line included,
    // so the error log is live and the socket location's `crit` level is what keeps tokens out.
    expect(await httpStatus(`http://${base}/api/health/live?probe=${CONTROL}`)).toBe(503);

    await waitFor('the control line in the error log', () =>
      readFileSync(errorLog, 'utf8').includes(CONTROL),
    );
    const access = readFileSync(accessLog, 'utf8');
    const errors = readFileSync(errorLog, 'utf8');
    expect(access).toContain('"GET /api/room/teal-otter/ws HTTP/1.1" 50');
    expect(access).not.toContain(SECRET);
    expect(access).not.toContain('token=');
    expect(access).not.toContain(CONTROL);
    expect(errors).not.toContain(SECRET);
    expect(errors).not.toContain('token=');
  });

  it("keeps the replicas' metrics off the public edge: Prometheus scrapes each replica", async () => {
    for (const path of ['/api/metrics', '/api/metrics?x=1']) {
      const response = await fetch(`http://${base}${path}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    }
  });

  it('answers JSON 503 for the api when no replica is reachable', async () => {
    const response = await fetch(`http://${base}/api/room/teal-otter`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sender_id: 'alice' }),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toEqual(API_UNAVAILABLE_BODY);
  });

  it('serves the client for its routes with the api security headers and no-cache', async () => {
    for (const path of ['/', '/a', '/r/teal-otter', '/index.html', '/no-such-page']) {
      const response = await fetch(`http://${base}${path}`);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('<title>Taco Chat</title>');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      for (const [name, value] of securityHeaders()) {
        expect(response.headers.get(name)).toBe(value);
      }
    }
  });

  it('caches hashed assets for a year and gzips them', async () => {
    const response = await fetch(`http://${base}/assets/app-1234.js`, {
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(response.headers.get('content-type')).toContain('application/javascript');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await httpStatus(`http://${base}/assets/missing.js`)).toBe(404);
  });

  it.each([
    ['index-abcd.js', 'application/javascript'],
    ['index-abcd.css', 'text/css'],
  ])('sends %s precompressed: brotli when offered, else gzip, else as is', async (name, type) => {
    const url = `http://${base}/assets/${name}`;
    const content = BUILT[name as keyof typeof BUILT];
    const brotli = await rawRequest(url, {
      headers: { 'Accept-Encoding': 'gzip, deflate, br, zstd' },
    });
    expect(brotli.status).toBe(200);
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotli.headers['content-type']).toContain(type);
    expect(brotli.headers.vary).toMatch(/Accept-Encoding/i);
    expect(brotli.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(brotli.headers['x-content-type-options']).toBe('nosniff');
    expect(Number(brotli.headers['content-length'])).toBe(brotli.body.length);
    expect(brotliDecompressSync(brotli.body).toString()).toBe(content);

    for (const offer of ['gzip', 'br;q=0, gzip']) {
      const gzip = await rawRequest(url, { headers: { 'Accept-Encoding': offer } });
      expect(gzip.headers['content-encoding']).toBe('gzip');
      expect(gzip.headers['content-type']).toContain(type);
      // The build's own file, not nginx compressing on the fly.
      expect(gzip.body.equals(readFileSync(join(www, 'assets', `${name}.gz`)))).toBe(true);
    }

    for (const headers of [{}, { 'Accept-Encoding': 'identity' }] as Record<string, string>[]) {
      const plain = await rawRequest(url, { headers });
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body.toString()).toBe(content);
    }
  });

  it('never serves a brotli twin by its own name', async () => {
    for (const offer of ['br', 'gzip', 'identity']) {
      const response = await rawRequest(`http://${base}/assets/index-abcd.js.br`, {
        headers: {
          'Accept-Encoding': offer,
        },
      });
      expect([offer, response.status]).toEqual([offer, 404]);
      expect(response.headers['content-encoding']).not.toBe('br');
    }
  });

  it('renders the docker config with DNS-resolved replicas and no query strings in logs', () => {
    const config = dockerNginxConfig();
    expect(config).toContain('listen 80;');
    expect(config).toContain('resolver 127.0.0.11');
    expect(config).toContain('zone taco_api');
    expect(config).toMatch(/server api:3000 max_fails=\d+ fail_timeout=\d+s resolve;/);
    expect(config).toContain('least_conn;');
    expect(config).toContain('error_log /var/log/nginx/error.log crit;');
    const directives = config
      .split('\n')
      .filter((line) => !line.trim().startsWith('#'))
      .join('\n');
    expect(directives).not.toMatch(/\$request\b|\$request_uri|\$args|\$query_string/);
    expect(config).not.toContain('{{');
  });

  it('renders a docker config that nginx -t accepts (1.27-only `resolve` aside)', () => {
    const dir = join(root, 'docker');
    for (const sub of ['www', 'log', 'cache']) mkdirSync(join(dir, sub), { recursive: true });
    // `server … resolve` is open source from nginx 1.27.3 (the image); older nginx, as on a
    // Debian host, checks everything else, with loopback standing in for the `api` name.
    // `nginx -v` prints to stderr.
    const version = spawnSync(NGINX, ['-v'], { encoding: 'utf8' }).stderr;
    const [major = 0, minor = 0, patch = 0] = (/nginx\/(\d+)\.(\d+)\.(\d+)/.exec(version) ?? [])
      .slice(1)
      .map(Number);
    const hasResolve = major * 1e6 + minor * 1e3 + patch >= 1_027_003;
    let config = dockerNginxConfig()
      .replaceAll('/var/log/nginx', join(dir, 'log'))
      .replaceAll('/var/cache/nginx', join(dir, 'cache'))
      .replaceAll('/var/run/nginx.pid', join(dir, 'nginx.pid'))
      .replaceAll('/usr/share/nginx/html', join(dir, 'www'))
      .replace('user nginx;', nginxUser() === undefined ? '' : `user ${nginxUser()};`)
      .replace('listen 80;', 'listen 127.0.0.1:80;');
    if (!hasResolve) {
      config = config.replace(/server api:3000 (.*) resolve;/, 'server 127.0.0.1:3000 $1;');
    }
    const configPath = join(dir, 'nginx.conf');
    writeFileSync(configPath, config);
    expect(() =>
      execFileSync(
        NGINX,
        ['-t', '-p', dir, '-e', join(dir, 'log', 'error.log'), '-c', configPath],
        {
          stdio: 'pipe',
        },
      ),
    ).not.toThrow();
  });
});

describe('nginx proxying', () => {
  const root = mkdtempSync(join(tmpdir(), 'taco-nginx-proxy-test-'));
  const errorLog = join(root, 'error.log');
  let nginx: ManagedProcess;
  let upstream: Server;
  let base: string;

  beforeAll(async () => {
    chmodSync(root, 0o755);
    mkdirSync(join(root, 'www'));
    mkdirSync(join(root, 'temp'));
    writeFileSync(join(root, 'www', 'index.html'), '<!doctype html>');
    // An upstream that answers every request with the headers it received.
    upstream = createServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(request.headers));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const upstreamPort = (upstream.address() as AddressInfo).port;
    ({ nginx, base } = await startNginx(root, `127.0.0.1:${upstreamPort}`, {
      accessLog: join(root, 'access.log'),
      errorLog,
    }));
  });

  afterAll(async () => {
    await nginx?.stop('SIGTERM', 5000);
    await new Promise((resolve) => upstream?.close(resolve));
    rmSync(root, { recursive: true, force: true });
  });

  it.each(['/api/health/ready', '/api/room/teal-otter/ws?token=x', '/api'])(
    'passes Host with its port and the client address on %s',
    async (path) => {
      const response = await fetch(`http://${base}${path}`, {
        headers: { 'x-forwarded-for': '203.0.113.7' },
      });
      const headers = (await response.json()) as IncomingHttpHeaders;
      expect(headers.host).toBe(base);
      expect(headers['x-forwarded-for']).toBe('203.0.113.7, 127.0.0.1');
      expect(headers['x-real-ip']).toBe('127.0.0.1');
      expect(headers['x-forwarded-proto']).toBe('http');
    },
  );
});
