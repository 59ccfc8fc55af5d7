import { type Writable } from 'node:stream';
import { Logger } from '@nestjs/common';
import { Cluster, type ClusterNode, Command, Redis, type RedisOptions } from 'ioredis';
import { isFailingOver } from './cluster-state';
import { roomKeys } from './redis-keys';

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
 * The replica's Redis connections: one for commands, which fails fast while Redis is away and
 * gives up on a command that takes too long; one writer, which stores messages and clears; and
 * one subscriber, which ioredis reconnects (the room subscriptions subscribe again).
 *
 * The writer fails fast too (a message that cannot be sent to Redis is refused, never queued out
 * of sight), but never gives up on a command it has sent: a script Redis has not answered may
 * still run (Redis paused or stalled for a while, say), so telling the sender that its message
 * was not stored could be untrue. Its messages are answered when Redis answers.
 *
 * On a Redis Cluster they are cluster clients: commands go to the node owning each key's slot,
 * and room channels are shard channels (`SSUBSCRIBE`/`SPUBLISH`), so a room's channel lives on
 * the shard that holds its keys; the subscriber keeps one connection per master.
 */
export class RedisConnections {
  private readonly logger = new Logger('Redis');
  readonly command: RedisClient;
  readonly subscriber: RedisClient;
  /**
   * Stores messages and clears, with no time limit on a command once sent (see above). With
   * durable acknowledgement it also sends the `WAIT` after them, which blocks the connection it
   * is sent on, so history and presence, on the command connection, never queue behind it.
   */
  readonly writer: RedisClient;
  /** Whether room channels are shard channels (a Redis Cluster). */
  readonly sharded: boolean;
  /** The name every connection of this replica gives Redis (`CLIENT SETNAME`). */
  private readonly name: string;
  /** The publish command of room channels, for the Lua scripts. */
  readonly publishCommand: 'PUBLISH' | 'SPUBLISH';
  private lastErrorLog = 0;
  /** The streams held corked until the event loop's next check phase. */
  private corked: Writable[] = [];
  private readonly endTurn = () => {
    const streams = this.corked;
    this.corked = [];
    for (const stream of streams) stream.uncork();
  };

  constructor(target: RedisTarget | string, replicaId: string) {
    const where = typeof target === 'string' ? { url: target } : target;
    this.name = `taco:${replicaId}`;
    const common: RedisOptions = { retryStrategy, connectionName: this.name };
    const writerOptions: RedisOptions = {
      ...common,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
    };
    const commandOptions: RedisOptions = { ...writerOptions, commandTimeout: COMMAND_TIMEOUT_MS };
    const subscriberOptions: RedisOptions = {
      ...common,
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
      // The room subscriptions subscribe every room again themselves once the connection is back
      // (`onSubscriberRenewed`), and fill its gap. ioredis's own re-subscription would only do
      // the first half twice, and leaves its SUBSCRIBE's promise unhandled: a connection closed
      // while that SUBSCRIBE is out becomes an unhandled rejection.
      autoResubscribe: false,
    };
    if ('url' in where) {
      this.sharded = false;
      this.command = new Redis(where.url, commandOptions);
      this.subscriber = new Redis(where.url, subscriberOptions);
      this.writer = new Redis(where.url, writerOptions);
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
      this.writer = new Cluster(nodes, {
        redisOptions: writerOptions,
        enableOfflineQueue: false,
        clusterRetryStrategy: retryStrategy,
        slotsRefreshInterval: SLOTS_REFRESH_INTERVAL_MS,
        enableAutoPipelining: true,
      });
    }
    this.publishCommand = this.sharded ? 'SPUBLISH' : 'PUBLISH';
    for (const [role, client] of [
      ['commands', this.command],
      ['subscriber', this.subscriber],
      ['writer', this.writer],
    ] as const) {
      // Said once per outage: ioredis retries every few hundred milliseconds meanwhile.
      let lost = false;
      client.on('error', (error: Error) => this.logError(role, error));
      client.on('ready', () => {
        lost = false;
        this.logger.log(`Redis ${role} connection ready`);
      });
      client.on('reconnecting', () => {
        if (lost) return;
        lost = true;
        this.logger.warn(`Redis ${role} connection lost; reconnecting`);
      });
    }
  }

  /**
   * The command connection, with this turn of the event loop's commands coalesced: everything
   * sent until the next check phase goes to Redis in one write (one system call) instead of one
   * write per command. Nothing waits for replies, and each command still gets its own reply or
   * error; the frames of many sockets read in one poll share a write. This holds at moderate load
   * too: the sockets' frames arrive in bursts, and sending a turn's first command at once cost
   * both the replica and Redis more (more, smaller writes and reads) than the check phase's wait.
   * (A cluster client pipelines each node's commands of a turn by itself.)
   */
  coalesced(): RedisClient {
    return this.corkedForTurn(this.command);
  }

  /** The writer, with this turn's commands coalesced like the command connection's. */
  coalescedWriter(): RedisClient {
    return this.corkedForTurn(this.writer);
  }

  private corkedForTurn(client: RedisClient): RedisClient {
    if (client instanceof Redis) {
      const stream = client.stream as Writable | undefined;
      if (stream?.writable && !this.corked.includes(stream)) {
        stream.cork();
        if (this.corked.length === 0) setImmediate(this.endTurn);
        this.corked.push(stream);
      }
    }
    return client;
  }

  /**
   * The writer's connection to the master that owns `key`'s slot now, connected (a cluster's node
   * connections open on first use); `undefined` when no such master is known.
   */
  async writerFor(key: string): Promise<Redis | undefined> {
    const writer = this.writer;
    if (writer instanceof Redis) return writer;
    const owner = writer.slots[new Command('exists', [key]).getSlot()]?.[0];
    return owner === undefined ? undefined : this.writerAt(owner);
  }

  /** The writer's connection to the node at `host:port` (a cluster's `MOVED` target), if known. */
  async writerAt(address: string): Promise<Redis | undefined> {
    const writer = this.writer;
    if (writer instanceof Redis) return writer;
    const node = writer
      .nodes('all')
      .find(({ options }) => `${options.host}:${options.port}` === address);
    if (node?.status === 'wait') await node.connect();
    return node;
  }

  /** The master serving a room on a cluster (`host:port`, '' while unknown); '' standalone. */
  shardOf(room: string): string {
    const command = this.command;
    if (!(command instanceof Cluster)) return '';
    return command.slots[new Command('spublish', [roomKeys(room).channel]).getSlot()]?.[0] ?? '';
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

  /**
   * Called whenever ioredis has renewed the subscriber's connection(s) (a reconnect; on a
   * cluster, also a failover or a slot move, after which ioredis subscribes the shard channels
   * again itself): every room must be subscribed again, and what was published meanwhile was
   * missed.
   */
  onSubscriberRenewed(listener: () => void): void {
    this.subscriber.on(this.sharded ? 'subscribersReady' : 'ready', listener);
  }

  /**
   * Whether Redis takes commands at all: the one Redis answers, or on a cluster any master says
   * the cluster is up, or only failing over (while one shard fails over, the replica stays ready);
   * not once a shard is lost for good, when the cluster refuses everything.
   */
  async canWrite(): Promise<boolean> {
    const cluster = this.command instanceof Cluster;
    const masters = cluster
      ? this.command.nodes('master').filter((node) => node.status === 'ready')
      : [this.command];
    if (masters.length === 0) masters.push(this.command as Redis);
    try {
      return await Promise.any(
        masters.map((node) => (cluster ? servesSlots(node) : answers(node))),
      );
    } catch {
      return false;
    }
  }

  /**
   * How many room channels Redis holds this replica's subscriber to (`CLIENT LIST TYPE pubsub`,
   * summed over a cluster's masters): one command per master, whatever the number of rooms.
   */
  async subscriptionCount(): Promise<number> {
    const nodes = this.command instanceof Cluster ? this.command.nodes('master') : [this.command];
    const field = this.sharded ? 'ssub' : 'sub';
    // ioredis names a cluster's shard subscribers after the node connection's name, prefixed.
    const name = this.sharded ? `ioredis-cluster(ssubscriber):${this.name}` : this.name;
    const lists = await Promise.all(
      nodes.map((node) => node.call('CLIENT', 'LIST', 'TYPE', 'pubsub') as Promise<string>),
    );
    let count = 0;
    for (const line of lists.join('\n').split('\n')) {
      const fields = new Map(line.split(' ').map((pair) => pair.split('=', 2) as [string, string]));
      if (fields.get('name') === name) count += Number(fields.get(field) ?? 0);
    }
    return count;
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
    return this.clients().every((client) => client.status === 'ready');
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
      this.clients().map((client) =>
        client.status === 'ready'
          ? withTimeout(client.quit(), COMMAND_TIMEOUT_MS, 'Closing a Redis connection')
          : Promise.resolve(),
      ),
    );
    for (const client of this.clients()) client.disconnect();
  }

  private clients(): RedisClient[] {
    return [this.command, this.subscriber, this.writer];
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

/** Resolves when a Redis answers PING. */
async function answers(node: Redis): Promise<true> {
  if ((await node.ping()) !== 'PONG') throw new Error('Redis did not answer PONG');
  return true;
}

/**
 * Resolves when a cluster node says the cluster serves its slots (`cluster_state:ok`), or that it
 * is down only while a failed master's replica takes over (`isFailingOver`). A node still answers
 * PING while the cluster is down for good (a master lost with its replicas), when every command
 * is refused with CLUSTERDOWN.
 */
async function servesSlots(node: Redis): Promise<true> {
  const info = String(await node.call('CLUSTER', 'INFO'));
  if (/^cluster_state:ok\b/m.test(info)) return true;
  if (isFailingOver(String(await node.call('CLUSTER', 'NODES')))) return true;
  throw new Error('The Redis Cluster is down');
}
