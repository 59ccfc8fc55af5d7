import { performance } from 'node:perf_hooks';
import { type Redis } from 'ioredis';
import { type HistoryPage, type HistoryQuery, type StoredMessage } from '../chat-bus.port';
import { type LuaScript } from './lua-script';
import { type RedisConnections } from './redis-connections';
import { ReplicaWait } from './replica-wait';

/** How often a message whose wait broke off looks for itself on the room's (new) master. */
const LOOKUP_INTERVAL_MS = 250;

/** Reads a room's history (the bus's own reading, on the command connection). */
export type HistoryReader = (room: string, query: HistoryQuery) => Promise<HistoryPage>;

export interface DurableWritesOptions {
  /** Told of each message acknowledged without its replicas confirmed, and why (metrics, log). */
  onUnconfirmed?: (why: string) => void;
}

/**
 * Durable acknowledgement (`REDIS_WAIT_REPLICAS`): a message is stored on the writer's connection
 * to the room's master, and its sender is acknowledged once `WAIT` on that same connection counts
 * enough Redis replicas holding it (one `WAIT` covers every write the connection made before it),
 * or once its deadline passed.
 */
export class DurableWrites {
  private readonly replicaWait: ReplicaWait;

  constructor(
    private readonly redis: RedisConnections,
    private readonly replicas: number,
    private readonly readHistory: HistoryReader,
    private readonly options: DurableWritesOptions = {},
  ) {
    this.replicaWait = new ReplicaWait(replicas);
  }

  /**
   * Runs `script` on the writer's connection to the master of `key`'s slot, following one `MOVED`
   * (the slot moved or failed over since the client last looked). Returns the connection that ran
   * it: only a `WAIT` on that connection can confirm it.
   */
  async store(
    script: LuaScript,
    key: string,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<{ node: Redis; reply: unknown }> {
    const node = await this.redis.writerFor(key);
    if (!node) throw new Error("No Redis master is known for the room's slot");
    try {
      return { node, reply: await script.run(node, keys, args) };
    } catch (error) {
      const moved = error instanceof Error ? /^MOVED \d+ (\S+)/.exec(error.message) : null;
      const target = moved?.[1] === undefined ? undefined : await this.redis.writerAt(moved[1]);
      if (!target) throw error;
      return { node: target, reply: await script.run(target, keys, args) };
    }
  }

  /**
   * Waits until Redis replicas hold a stored message, at most until `deadline`. A message the wait
   * could not confirm in time is still acknowledged (it is stored and the others have it),
   * counted and logged as unconfirmed. When the connection that stored it broke before a `WAIT`
   * answered (its master died, say), the message is looked for on the room's master, promoted or
   * not, until the deadline: found, it is acknowledged; gone, this throws (it was not stored).
   */
  async confirm(
    room: string,
    message: StoredMessage,
    node: Redis,
    deadline: number,
  ): Promise<void> {
    const outcome = await this.replicaWait.confirm(node, deadline);
    if (outcome === 'confirmed') return;
    if (outcome === 'lost' && !(await this.isStillStored(room, message, deadline))) {
      throw new Error('The Redis master failed before the message reached a replica');
    }
    this.options.onUnconfirmed?.(
      `Message ${message.seq} in room ${room} acknowledged before ${this.replicas} Redis replica(s) confirmed it (${outcome === 'lost' ? 'its master failed; the master now serving the room holds it' : 'the wait ran out'})`,
    );
  }

  /**
   * Whether the room's master holds the message (same epoch, same seq, same content); true when
   * that cannot be told before `deadline` (the sender is told it is stored, as with any wait that
   * ran out).
   */
  private async isStillStored(
    room: string,
    message: StoredMessage,
    deadline: number,
  ): Promise<boolean> {
    for (;;) {
      try {
        const page = await this.readHistory(room, {
          count: 1,
          after: message.seq - 1,
          epoch: message.epoch,
        });
        const found = page.messages[0];
        return (
          page.epoch === message.epoch &&
          found !== undefined &&
          found.seq === message.seq &&
          found.sender === message.sender &&
          found.body === message.body &&
          found.timestamp === message.timestamp
        );
      } catch {
        if (performance.now() + LOOKUP_INTERVAL_MS >= deadline) return true;
        await new Promise((resolve) => setTimeout(resolve, LOOKUP_INTERVAL_MS));
      }
    }
  }
}
