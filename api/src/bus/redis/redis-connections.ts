import { type Writable } from 'node:stream';
import { Logger } from '@nestjs/common';
import { Cluster, type ClusterNode, Redis, type RedisOptions } from 'ioredis';

/** How long a command may take before it fails instead of holding a client's frame. */
const COMMAND_TIMEOUT_MS = 2000;
/** How long subscribing may take before a join fails. */
export const SUBSCRIBE_TIMEOUT_MS = 3000;
const ERROR_LOG_INTERVAL_MS = 10_000;
/** How often a cluster client re-reads which node owns which slots. */
const SLOTS_REFRESH_INTERVAL_MS = 2000;

const retryStrategy = (attempt: number) => Math.min(100 * attempt, 2000);

/** One standalone Redis (`REDIS_URL`) or the seed nodes of a Redis Cluster (`REDIS_CLUSTER_NODES`). */
export type RedisTarget = { url: string } | { clusterNodes: readonly RedisNodeAddress[] };

export interface RedisNodeAddress {
  host: string;
  port: number;
}

/** A client of either kind: every command the driver sends works on both. */
export type RedisClient = Redis | Cluster;

/**
 * The replica's two Redis connections: one for commands, which fails fast while Redis is away
 * (a message that cannot be stored is refused, never queued out of sight), and one subscriber,
 * which ioredis reconnects and re-subscribes by itself.
 *
 * On a Redis Cluster both are cluster clients: commands go to the node owning each key's slot,
 * and room channels are shard channels (`SSUBSCRIBE`/`SPUBLISH`), so a room's channel lives on
 * the shard that holds its keys; the subscriber keeps one connection per master.
 */
export class RedisConnections {
  private readonly logger = new Logger('Redis');
  readonly command: RedisClient;
  readonly subscriber: RedisClient;
  /** Whether room channels are shard channels (a Redis Cluster). */
  readonly sharded: boolean;
  /** The publish command of room channels, for the Lua scripts. */
  readonly publishCommand: 'PUBLISH' | 'SPUBLISH';
  private lastErrorLog = 0;
  /** Whether a command has been sent in this turn of the event loop (until its check phase). */
  private sentThisTurn = false;
  /** The command stream held corked until the event loop's next check phase, if any. */
  private corked: Writable | null = null;
  private readonly endTurn = () => {
    this.sentThisTurn = false;
    const stream = this.corked;
    this.corked = null;
    stream?.uncork();
  };

  constructor(target: RedisTarget | string, replicaId: string) {
    const where = typeof target === 'string' ? { url: target } : target;
    const common: RedisOptions = { retryStrategy, connectionName: `taco:${replicaId}` };
    const commandOptions: RedisOptions = {
      ...common,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: COMMAND_TIMEOUT_MS,
    };
    const subscriberOptions: RedisOptions = {
      ...common,
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
      autoResubscribe: true,
    };
    if ('url' in where) {
      this.sharded = false;
      this.command = new Redis(where.url, commandOptions);
      this.subscriber = new Redis(where.url, subscriberOptions);
    } else {
      this.sharded = true;
      const nodes: ClusterNode[] = where.clusterNodes.map(({ host, port }) => ({ host, port }));
      this.command = new Cluster(nodes, {
        redisOptions: commandOptions,
        // Like the standalone connection, never queue out of sight: while a shard fails over,
        // its rooms' commands fail and their senders are told.
        enableOfflineQueue: false,
        clusterRetryStrategy: retryStrategy,
        slotsRefreshInterval: SLOTS_REFRESH_INTERVAL_MS,
        enableAutoPipelining: true,
      });
      this.subscriber = new Cluster(nodes, {
        redisOptions: subscriberOptions,
        clusterRetryStrategy: retryStrategy,
        slotsRefreshInterval: SLOTS_REFRESH_INTERVAL_MS,
        shardedSubscribers: true,
      });
    }
    this.publishCommand = this.sharded ? 'SPUBLISH' : 'PUBLISH';
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
   * The command connection, with this turn of the event loop's commands coalesced: the first goes
   * out at once, and everything sent after it until the next check phase goes to Redis in one
   * write (one system call) instead of one write per command. Nothing waits for replies, and each
   * command still gets its own reply or error; under load, the frames of many sockets read in one
   * poll share a write, while a lone command (moderate load) pays for no holding back. (A cluster
   * client pipelines each node's commands of a turn by itself.)
   */
  coalesced(): RedisClient {
    if (this.command instanceof Redis) {
      const stream = this.command.stream as Writable | undefined;
      if (!this.sentThisTurn) {
        this.sentThisTurn = true;
        setImmediate(this.endTurn);
      } else if (this.corked === null && stream?.writable) {
        stream.cork();
        this.corked = stream;
      }
    }
    return this.command;
  }

  /** Subscribes to a room channel (a shard channel on a cluster). */
  subscribe(channel: string): Promise<unknown> {
    return this.sharded ? this.subscriber.ssubscribe(channel) : this.subscriber.subscribe(channel);
  }

  unsubscribe(channel: string): Promise<unknown> {
    return this.sharded
      ? this.subscriber.sunsubscribe(channel)
      : this.subscriber.unsubscribe(channel);
  }

  /** Publishes to a room channel outside a script. */
  publish(channel: string, payload: string): Promise<unknown> {
    const client = this.coalesced();
    return this.sharded ? client.spublish(channel, payload) : client.publish(channel, payload);
  }

  /** Every message on a room channel, as raw bytes. */
  onMessage(listener: (channel: Buffer, payload: Buffer) => void): void {
    this.subscriber.on(this.sharded ? 'smessageBuffer' : 'messageBuffer', listener);
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
