import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ApiPath, FrameType } from '@taco/protocol';
import { type DestinationStream } from 'pino';
import { RedisServer } from './support/redis-server';
import { startTestApp } from './support/test-app';

/** Keeps every line the application logs, each parsed as the JSON object it must be. */
class CapturedLog implements DestinationStream {
  readonly text: string[] = [];

  write(line: string): void {
    this.text.push(line);
  }

  get lines(): Record<string, unknown>[] {
    return this.text.map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /** The connection lines (opened, refused, closed). */
  get connections(): Record<string, unknown>[] {
    return this.lines.filter((line) => line.context === 'Connection');
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('Logs', () => {
  it('never contain a room token or a message, whatever happens to the connection', async () => {
    const redis = await RedisServer.start();
    const log = new CapturedLog();
    const app = await startTestApp({ redisUrl: redis.url, logLevel: 'trace' }, log);
    try {
      const token = await app.token('log-room', 'Ann');
      const ann = app.connect('log-room', token);
      await ann.next((frame) => frame.type === FrameType.Presence);
      ann.send('not json');
      await ann.nextOfType(FrameType.Error);
      ann.send({ type: FrameType.Message, body: 'a secret message body' });
      await ann.nextOfType(FrameType.Message);
      const forged = `${token.slice(0, -4)}AAAA`;
      await app.connect('log-room', forged).closed;
      await app.connect('other-room', token).closed;
      await fetch(`${app.baseUrl}${ApiPath.healthLive}?token=${token}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      // Storage failing under a live connection makes the server log errors.
      await redis.stop('SIGKILL');
      ann.send({ type: FrameType.Message, body: 'while Redis is down' });
      await ann.nextOfType(FrameType.Error, 5000);
      await ann.close();
      await settle();
      expect(log.lines.length).toBeGreaterThan(0);
      expect(log.lines.some((line) => line.level === 'error')).toBe(true);
      const all = log.text.join('\n');
      for (const secret of [token, forged, token.split('.')[2], 'a secret message body']) {
        expect(all).not.toContain(secret);
      }
      expect(all).not.toContain('while Redis is down');
    } finally {
      await app.close();
      await redis.dispose();
    }
  });

  it('has one JSON line per connection opened, refused and closed, with its fields', async () => {
    const log = new CapturedLog();
    const app = await startTestApp({ replicaId: 'api-7', logLevel: 'info' }, log);
    try {
      const token = await app.token('line-room', 'Ann');
      const ann = app.connect('line-room', token);
      await ann.next((frame) => frame.type === FrameType.Presence);
      await app.connect('line-room', `${token.slice(0, -4)}AAAA`).closed;
      app.clock.advance(1500);
      await ann.close();
      await settle();
      const common = {
        level: 'info',
        replica: 'api-7',
        context: 'Connection',
        time: expect.any(String),
      };
      expect(log.connections).toEqual([
        { ...common, msg: 'opened', room: 'line-room', connection: 'api-7:1' },
        {
          ...common,
          msg: 'refused',
          room: 'line-room',
          code: 4401,
          reason: 'Unauthorized',
        },
        {
          ...common,
          msg: 'closed',
          room: 'line-room',
          connection: 'api-7:1',
          code: 1000,
          durationMs: 1500,
        },
      ]);
      // Each field once: a key written twice is a line some log shippers refuse.
      for (const line of log.text.filter((text) => text.includes('"context":"Connection"'))) {
        expect(line.match(/"replica":/g)).toHaveLength(1);
      }
    } finally {
      await app.close();
    }
  });

  it('gives every HTTP request an id, logged (at debug) with its method and path only', async () => {
    const log = new CapturedLog();
    const app = await startTestApp({ logLevel: 'debug' }, log);
    try {
      const response = await fetch(`${app.baseUrl}${ApiPath.healthLive}?token=secret-in-query`, {
        headers: { 'x-request-id': 'trace-42' },
      });
      expect(response.headers.get('x-request-id')).toBe('trace-42');
      const fresh = await fetch(`${app.baseUrl}${ApiPath.healthLive}`);
      expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      await settle();
      const requests = log.lines.filter((line) => line.req !== undefined);
      expect(requests[0]).toMatchObject({
        level: 'debug',
        reqId: 'trace-42',
        req: { method: 'GET', path: ApiPath.healthLive },
        res: { statusCode: 200 },
        responseTimeMs: expect.any(Number),
        msg: 'request completed',
      });
      expect(log.text.join('\n')).not.toContain('secret-in-query');
    } finally {
      await app.close();
    }
  });

  it('writes no connection line at LOG_LEVEL=warn, and no request line above debug', async () => {
    const log = new CapturedLog();
    const app = await startTestApp({ logLevel: 'warn' }, log);
    try {
      const ann = await app.join('quiet-room', 'Ann');
      await fetch(`${app.baseUrl}${ApiPath.healthLive}`);
      await ann.close();
      await settle();
      expect(log.lines.filter((line) => line.context === 'Connection' || line.req)).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

describe('A start that fails', () => {
  it('is logged as JSON lines at the configured level, with a fatal one saying why, then exits 1', async () => {
    // The port is taken: listening fails once the application is made.
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const child = spawn(process.execPath, [join(__dirname, '../dist/main.js')], {
        env: {
          ...process.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          WEB_DIST: 'off',
          LOG_LEVEL: 'warn',
          JWT_SECRET: 'a-test-secret-that-is-long-enough-for-hs256',
          REDIS_URL: '',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(1);
      expect(stderr).toBe('');
      const lines = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      // Nothing below warn, and a fatal line says why (Nest's own error line about the failed
      // listen may come before or after it).
      expect(
        lines.filter((line) => !['warn', 'error', 'fatal'].includes(String(line.level))),
      ).toEqual([]);
      expect(lines.filter((line) => line.level === 'fatal')).toEqual([
        expect.objectContaining({
          msg: expect.stringMatching(/^Taco Chat could not start: .*EADDRINUSE/),
        }),
      ]);
    } finally {
      blocker.close();
    }
  }, 30_000);
});
