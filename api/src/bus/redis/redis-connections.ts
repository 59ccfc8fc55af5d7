import { type Writable } from 'node:stream';
import { Logger } from '@nestjs/common';
import { Redis, type RedisOptions } from 'ioredis';

/** How long a command may take before it fails instead of holding a client's frame. */
const COMMAND_TIMEOUT_MS = 2000;
/** How long subscribing may take before a join fails. */
export const SUBSCRIBE_TIMEOUT_MS = 3000;
const ERROR_LOG_INTERVAL_MS = 10_000;

const retryStrategy = (attempt: number) => Math.min(100 * attempt, 2000);

/**
 * The replica's two Redis connections: one for commands, which fails fast while Redis is away
 * (a message that cannot be stored is refused, never queued out of sight), and one subscriber,
 * which ioredis reconnects and re-subscribes by itself.
 */
export class RedisConnections {
  private readonly logger = new Logger('Redis');
  readonly command: Redis;
  readonly subscriber: Redis;
  private lastErrorLog = 0;
  /** The command stream held corked until the event loop's next check phase, if any. */
  private corked: Writable | null = null;
  private readonly uncork = () => {
    const stream = this.corked;
    this.corked = null;
    stream?.uncork();
  };

  constructor(url: string, replicaId: string) {
    const common: RedisOptions = { retryStrategy, connectionName: `taco:${replicaId}` };
    this.command = new Redis(url, {
      ...common,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: COMMAND_TIMEOUT_MS,
    });
    this.subscriber = new Redis(url, {
      ...common,
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
      autoResubscribe: true,
    });
    for (const [role, client] of [
      ['commands', this.command],
      ['subscriber', this.subscriber],
    ] as const) {
      client.on('error', (error: Error) => this.logError(role, error));
      client.on('ready', () => this.logger.log(`Redis ${role} connection ready`));
      client.on('reconnecting', () =>
        this.logger.warn(`Redis ${role} connection lost; reconnecting`),
      );
    }
  }

  /**
   * The command connection, with this turn of the event loop's commands coalesced: everything
   * sent until the next check phase goes to Redis in one write (one system call) instead of one
   * write per command. Nothing waits for replies, and each command still gets its own reply or
   * error; under load, the frames of many sockets read in one poll share a write.
   */
  coalesced(): Redis {
    const stream = this.command.stream as Writable | undefined;
    if (this.corked === null && stream?.writable) {
      stream.cork();
      this.corked = stream;
      setImmediate(this.uncork);
    }
    return this.command;
  }

  private logError(role: string, error: Error): void {
    const now = Date.now();
    if (now - this.lastErrorLog < ERROR_LOG_INTERVAL_MS) return;
    this.lastErrorLog = now;
    this.logger.error(`Redis ${role} connection: ${error.message}`);
  }

  get isConnected(): boolean {
    return this.command.status === 'ready' && this.subscriber.status === 'ready';
  }

  /** Waits (bounded) for both connections, so a replica that boots with Redis up is ready at once. */
  async waitUntilReady(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.isConnected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return this.isConnected;
  }

  /** Quits politely when connected (bounded), and simply drops a connection that is down. */
  async close(): Promise<void> {
    await Promise.allSettled(
      [this.command, this.subscriber].map((client) =>
        client.status === 'ready'
          ? withTimeout(client.quit(), COMMAND_TIMEOUT_MS, 'Closing a Redis connection')
          : Promise.resolve(),
      ),
    );
    this.command.disconnect();
    this.subscriber.disconnect();
  }
}

/** Rejects when `promise` takes longer than `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
