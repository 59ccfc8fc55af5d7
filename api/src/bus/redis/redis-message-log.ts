import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type ChatMessage } from '@taco/protocol';
import {
  type HistoryPage,
  type HistoryQuery,
  type MessageDraft,
  type StoredMessage,
} from '../chat-bus.port';
import { newEpoch } from '../epoch';
import { clearedPayload } from '../room-events';
import { AppendBatch, type AppendEntry, appendCall } from './append-batch';
import { appended, appendTexts, entryHead, PLACEHOLDER_SEQ } from './append-texts';
import { DurableWrites } from './durable-writes';
import { LuaScript } from './lua-script';
import { type RedisClient, type RedisConnections } from './redis-connections';
import { roomCallKey, roomKeys } from './redis-keys';
import { APPEND_SCRIPT, CLEAR_SCRIPT, HISTORY_SCRIPT } from './scripts';

export interface RedisMessageLogOptions {
  historyMax: number;
  roomTtlSeconds: number;
  /**
   * Redis replicas that must hold a message (`WAIT`) before its sender gets its own copy; 0
   * acknowledges once the master stored it.
   */
  waitReplicas?: number;
  /** How long a message waits for them before it is acknowledged as unconfirmed. */
  waitTimeoutMs?: number;
  /** Told how long each chat command took from sending to its reply (metrics). */
  onRoundTrip?: (command: RedisChatCommand, seconds: number) => void;
  /** Told of each message acknowledged without its replicas confirmed, and why (metrics, log). */
  onUnconfirmed?: (why: string) => void;
}

export type RedisChatCommand = 'append' | 'clear' | 'history' | 'publish' | 'wait';

/**
 * A stored message as the log keeps it: the message, its sender's `client_id` if any, and the
 * sending connection whose copy is held back as its acknowledgement (durable writes), if any.
 */
export interface StoredEntry extends ChatMessage {
  client_id?: string;
  except_connection?: string;
}

/** The message of a stored entry, without the fields a history reply does not carry. */
export function messageOf(entry: StoredEntry): ChatMessage {
  if (entry.client_id === undefined && entry.except_connection === undefined) return entry;
  const { sender, body, timestamp, seq } = entry;
  return { sender, body, timestamp, seq };
}

const append = new LuaScript(APPEND_SCRIPT);
const clear = new LuaScript(CLEAR_SCRIPT);
const history = new LuaScript(HISTORY_SCRIPT);

/**
 * The Redis driver's storage: history in a Redis list per room, `seq` from INCR. Storing and
 * publishing a message is one Lua script, run on the writer connection: a message is
 * acknowledged, or refused as not stored, only by Redis's answer. Clearing is one script too.
 */
export class RedisMessageLog {
  /** Set when messages are acknowledged only once Redis replicas hold them. */
  private readonly durable: DurableWrites | null;
  /**
   * A turn's messages, stored in one script call. Not on a Redis Cluster, where each room's keys
   * live in their own slot and one call can only touch one.
   */
  private readonly batch: AppendBatch | null;
  /** This process's storing calls: a random prefix and a count make each call's id unique. */
  private readonly callPrefix = randomBytes(6).toString('base64url');
  private calls = 0;

  constructor(
    private readonly redis: RedisConnections,
    private readonly options: RedisMessageLogOptions,
  ) {
    const replicas = options.waitReplicas ?? 0;
    this.durable =
      replicas > 0
        ? new DurableWrites(redis, replicas, (room, query) => this.history(room, query), {
            onUnconfirmed: options.onUnconfirmed,
          })
        : null;
    this.batch = redis.sharded
      ? null
      : new AppendBatch((entries) => this.runAppend(redis.writer, entries));
  }

  async append(room: string, draft: MessageDraft): Promise<StoredMessage> {
    const keys = roomKeys(room);
    const message: ChatMessage = {
      sender: draft.sender,
      body: draft.body,
      timestamp: draft.timestamp,
      seq: PLACEHOLDER_SEQ,
    };
    // The sender's connection whose copy is held back until the message is durable.
    const heldFor = this.durable === null ? undefined : draft.connectionId;
    const entry: AppendEntry = {
      room,
      keys: [keys.seq, keys.log, keys.epoch, keys.channel],
      args: appendTexts(room, message, draft.clientId, heldFor),
    };
    const started = performance.now();
    if (this.durable === null) {
      const [seq, epoch] = appended(
        await (this.batch
          ? this.batch.add(entry)
          : this.runAppend(this.redis.coalescedWriter(), [entry])),
      );
      this.roundTrip('append', started);
      return { ...message, seq, epoch };
    }
    const deadline = started + (this.options.waitTimeoutMs ?? 0);
    const { keys: scriptKeys, args } = this.appendCall([entry], heldFor);
    const { node, reply } = await this.durable.store(append, keys.seq, scriptKeys, args);
    const [seq, epoch] = appended(reply);
    this.roundTrip('append', started);
    const stored: StoredMessage = { ...message, seq, epoch };
    const waited = performance.now();
    await this.durable.confirm(room, stored, node, deadline);
    this.roundTrip('wait', waited);
    return heldFor === undefined ? stored : { ...stored, held: true };
  }

  /** Runs the append script on `client` for `entries`; it answers a line per entry. */
  private runAppend(client: RedisClient, entries: readonly AppendEntry[]): Promise<unknown> {
    const { keys, args } = this.appendCall(entries, undefined);
    return append.run(client, keys, args);
  }

  /** The append call for `entries`, whose stored entries hold back `heldFor`'s copy if given. */
  private appendCall(entries: readonly AppendEntry[], heldFor: string | undefined) {
    const { historyMax, roomTtlSeconds } = this.options;
    return appendCall(
      entries,
      [historyMax, roomTtlSeconds, this.redis.publishCommand, newEpoch(), entryHead(heldFor)],
      this.callKey(entries[0]?.room ?? ''),
    );
  }

  /** A key of its own for one storing call, in `room`'s slot (see `APPEND_SCRIPT`). */
  private callKey(room: string): string {
    return roomCallKey(room, `${this.callPrefix}${(++this.calls).toString(36)}`);
  }

  async clear(room: string, sender: string): Promise<void> {
    const keys = roomKeys(room);
    // Messages sent before the clear are stored before it.
    this.batch?.flush();
    const started = performance.now();
    await clear.run(
      this.redis.coalescedWriter(),
      [keys.seq, keys.log, keys.epoch, keys.channel, keys.cleared, this.callKey(room)],
      [clearedPayload(room, sender), this.redis.publishCommand, this.options.roomTtlSeconds],
    );
    this.roundTrip('clear', started);
  }

  async history(room: string, query: HistoryQuery): Promise<HistoryPage> {
    const page = await this.entries(room, query);
    return { ...page, messages: page.messages.map(messageOf) };
  }

  /** The room's history as stored, each entry with its sender's `client_id` (for gap fills). */
  async entries(
    room: string,
    query: HistoryQuery,
  ): Promise<HistoryPage & { messages: StoredEntry[] }> {
    const keys = roomKeys(room);
    const started = performance.now();
    const [complete, entries, epoch] = (await history.run(
      this.redis.coalesced(),
      [keys.seq, keys.log, keys.epoch, keys.cleared, keys.settings],
      [
        query.count,
        query.after ?? '',
        query.epoch === undefined ? '' : `=${query.epoch}`,
        newEpoch(),
        this.options.roomTtlSeconds,
      ],
    )) as [number, string[], string];
    this.roundTrip('history', started);
    return {
      epoch,
      messages: entries.map((entry) => JSON.parse(entry) as StoredEntry),
      complete: complete === 1,
    };
  }

  /** Tells `onRoundTrip` how long `command`, sent at `started`, took. */
  roundTrip(command: RedisChatCommand, started: number): void {
    this.options.onRoundTrip?.(command, (performance.now() - started) / 1000);
  }
}
