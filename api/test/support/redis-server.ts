import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePorts } from '@taco/harness';

/** A real `redis-server` on a free loopback port, with AOF in a temporary directory. */
export class RedisServer {
  private process: ChildProcess | undefined;
  readonly dir = mkdtempSync(join(tmpdir(), 'taco-redis-'));

  private constructor(readonly port: number) {}

  static async start(): Promise<RedisServer> {
    const [port = 0] = await freePorts(1);
    const server = new RedisServer(port);
    await server.start();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--dir',
        this.dir,
        '--appendonly',
        'yes',
        '--appendfsync',
        'everysec',
        '--save',
        '',
        '--protected-mode',
        'yes',
      ],
      { stdio: 'ignore' },
    );
    this.process = child;
    const client = new Redis(this.port, '127.0.0.1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    const deadline = Date.now() + 10_000;
    try {
      for (;;) {
        try {
          await client.connect();
          if ((await client.ping()) === 'PONG') return;
        } catch {
          if (Date.now() > deadline)
            throw new Error(`redis-server did not start on port ${this.port}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    } finally {
      client.disconnect();
    }
  }

  /** Stops the server (SIGTERM writes the AOF out; SIGKILL does not). */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.process;
    this.process = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }

  /** Freezes the server (SIGSTOP): connections stay open, and nothing is answered until `resume`. */
  pause(): void {
    this.process?.kill('SIGSTOP');
  }

  resume(): void {
    this.process?.kill('SIGCONT');
  }

  async dispose(): Promise<void> {
    this.resume();
    await this.stop('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** A plain client for assertions on what is stored. */
  client(): Redis {
    return new Redis(this.port, '127.0.0.1');
  }
}
