import { type LoggerService } from '@nestjs/common';
import { FrameType } from '@taco/protocol';
import { RedisServer } from './support/redis-server';
import { startTestApp } from './support/test-app';

/** Keeps every line the application logs, at every level. */
class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];
  private keep(level: string, message: unknown, rest: unknown[]) {
    this.lines.push(`${level} ${String(message)} ${rest.map(String).join(' ')}`);
  }
  log(message: unknown, ...rest: unknown[]) {
    this.keep('log', message, rest);
  }
  error(message: unknown, ...rest: unknown[]) {
    this.keep('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]) {
    this.keep('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]) {
    this.keep('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]) {
    this.keep('verbose', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]) {
    this.keep('fatal', message, rest);
  }
}

describe('Logs', () => {
  it('never contain a room token, whatever happens to the connection', async () => {
    const redis = await RedisServer.start();
    const logger = new CapturingLogger();
    const app = await startTestApp({ redisUrl: redis.url }, logger);
    try {
      const token = await app.token('log-room', 'Ann');
      const ann = app.connect('log-room', token);
      await ann.next((frame) => frame.type === FrameType.Presence);
      ann.send('not json');
      await ann.nextOfType(FrameType.Error);
      const forged = `${token.slice(0, -4)}AAAA`;
      await app.connect('log-room', forged).closed;
      await app.connect('other-room', token).closed;
      // Storage failing under a live connection makes the server log errors.
      await redis.stop('SIGKILL');
      ann.send({ type: FrameType.Message, body: 'while Redis is down' });
      await ann.nextOfType(FrameType.Error, 5000);
      await ann.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(logger.lines.length).toBeGreaterThan(0);
      const all = logger.lines.join('\n');
      expect(all).not.toContain(token);
      expect(all).not.toContain(forged);
      expect(all).not.toContain(token.split('.')[2]);
    } finally {
      await app.close();
      await redis.dispose();
    }
  });

  it('has one line per connection opened, refused and closed: room, replica, code, duration', async () => {
    const logger = new CapturingLogger();
    const app = await startTestApp({ replicaId: 'api-7' }, logger);
    try {
      const token = await app.token('line-room', 'Ann');
      const ann = app.connect('line-room', token);
      await ann.next((frame) => frame.type === FrameType.Presence);
      await app.connect('line-room', `${token.slice(0, -4)}AAAA`).closed;
      await ann.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const lines = logger.lines.filter((line) => / (opened|refused|closed) room=/.test(line));
      expect(lines).toEqual([
        expect.stringMatching(/^log opened room=line-room replica=api-7 connection=api-7:1 /),
        expect.stringMatching(/^log refused room=line-room replica=api-7 code=4401 /),
        expect.stringMatching(
          /^log closed room=line-room replica=api-7 connection=api-7:1 code=1000 duration=\d+\.\ds /,
        ),
      ]);
      expect(lines.join('\n')).not.toContain(token.split('.')[2]);
    } finally {
      await app.close();
    }
  });
});
