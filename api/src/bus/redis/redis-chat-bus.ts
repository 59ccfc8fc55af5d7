import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type ChatMessage } from '@taco/protocol';
import {
  ChatBus,
  type DeliveryListener,
  type HistoryPage,
  type HistoryQuery,
  type MessageDraft,
  type RoomEvent,
  type StoredMessage,
} from '../chat-bus.port';
import { newEpoch } from '../epoch';
import { clearedPayload, messagePayload } from '../room-events';
import { decodeEnvelope, encodeEnvelope } from './envelope';
import { LuaScript } from './lua-script';
import {
  type RedisClient,
  type RedisConnections,
  SUBSCRIBE_TIMEOUT_MS,
  withTimeout,
} from './redis-connections';
import { AppendBatch, type AppendEntry, appendCall } from './append-batch';
import { appended, appendTexts, PLACEHOLDER_SEQ } from './append-texts';
import { DurableWrites } from './durable-writes';
import { messageNumber, RoomFeed } from './room-feed';
import { roomKeys, roomOfChannel } from './redis-keys';
import { APPEND_SCRIPT, CLEAR_SCRIPT, HISTORY_SCRIPT } from './scripts';

export interface RedisChatBusOptions {
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
  /**
   * How often the subscriptions of rooms that were quiet that long are checked with a probe
   * through their channel; one that does not come back within as long is renewed. 0: no checks.
   */
  subscriptionCheckMs?: number;
  /**
   * Told of each room subscribed again, and whether its subscription had been found gone
   * (`lost`) or the subscriber connection was renewed (`renewed`); a gap fill followed.
   */
  onResubscribed?: (room: string, cause: 'lost' | 'renewed') => void;
}

export type RedisChatCommand = 'append' | 'clear' | 'history' | 'publish' | 'wait';

/** A gap fill reads history this many messages at a time, at most `FILL_PAGES` times. */
const FILL_PAGE = 500;
const FILL_PAGES = 4;
/**
 * First byte of a probe's envelope (never a name's: names hold no control characters). Its payload
 * is a heartbeat, harmless to any client a replica that does not know probes hands it to.
 */
const PROBE_MARK = 0x01;
const PROBE_PAYLOAD = '\n{"type":6}';
/** Makes every probe of this process distinct, so a failed publish forgets only its own. */
const PROBE_PREFIX = randomBytes(6).toString('base64url');

/**
 * A stored message as the log keeps it: the message, its sender's `client_id` if any, and the
 * sending connection whose copy is held back as its acknowledgement (durable writes), if any.
 */
interface StoredEntry extends ChatMessage {
  client_id?: string;
  except_connection?: string;
}

/** The message of a stored entry, without the fields a history reply does not carry. */
function messageOf(entry: StoredEntry): ChatMessage {
  if (entry.client_id === undefined && entry.except_connection === undefined) return entry;
  const { sender, body, timestamp, seq } = entry;
  return { sender, body, timestamp, seq };
}

const append = new LuaScript(APPEND_SCRIPT);
const clear = new LuaScript(CLEAR_SCRIPT);
const history = new LuaScript(HISTORY_SCRIPT);

/**
 * The scaled driver: history in a Redis list per room, `seq` from INCR, fan-out through one
 * channel per room. Storing and publishing a message is one Lua script, run on the writer
 * connection: a message is acknowledged, or refused as not stored, only by Redis's answer.
 */
export class RedisChatBus extends ChatBus {
  private listener: DeliveryListener = () => undefined;
  /** Set when messages are acknowledged only once Redis replicas hold them. */
  private readonly durable: DurableWrites | null;
  /**
   * A turn's messages, stored in one script call. Not on a Redis Cluster, where each room's keys
   * live in their own slot and one call can only touch one.
   */
  private readonly batch: AppendBatch | null;
  /** The rooms this replica subscribes to, and what their subscriptions delivered. */
  private readonly feeds = new Map<string, RoomFeed>();
  private readonly renewing = new Set<RoomFeed>();
  private readonly checker: NodeJS.Timeout | undefined;
  private probes = 0;

  constructor(
    private readonly redis: RedisConnections,
    private readonly options: RedisChatBusOptions,
  ) {
    super();
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
    redis.onMessage((channel, envelope) => this.received(channel, envelope));
    redis.onSubscriberRenewed(() => {
      for (const [room, feed] of this.feeds) void this.renew(room, feed, 'renewed');
    });
    const checkMs = options.subscriptionCheckMs ?? 0;
    if (checkMs > 0) {
      this.checker = setInterval(() => this.checkSubscriptions(checkMs), checkMs).unref();
    }
  }

  /** Stops checking subscriptions (the connections are closed by their owner). */
  stop(): void {
    clearInterval(this.checker);
  }

  /**
   * Everything that comes through a room's channel: probes are taken here; a stored message
   * already delivered (a gap fill got it first) is dropped; the rest goes to the listener.
   */
  private received(channel: Buffer, envelope: Buffer): void {
    const room = roomOfChannel(channel);
    if (room === null) return;
    const feed = this.feeds.get(room);
    if (envelope[0] === PROBE_MARK) {
      // Any probe through the channel, ours or another replica's, shows the subscription works.
      if (feed) {
        feed.heardAt = performance.now();
        feed.probe = null;
      }
      return;
    }
    const event = decodeEnvelope(envelope);
    if (event === null) return;
    if (feed) {
      feed.heardAt = performance.now();
      const number = messageNumber(event.payload as Buffer);
      if (number !== null) {
        const taken = feed.takeLive(number.epoch, number.seq);
        if (taken === 'late') this.refill(room, feed);
        if (taken !== 'deliver') return;
        event.number = number;
      }
    }
    this.listener(room, event);
  }

  /**
   * Probes the subscription of every room that was quiet for `checkMs`: a probe published to the
   * room's channel must come back through it. A subscription whose probe did not come back within
   * `checkMs` is renewed. (A busy room shows its subscription works with every event.)
   */
  private checkSubscriptions(checkMs: number): void {
    const now = performance.now();
    for (const [room, feed] of this.feeds) {
      if (this.renewing.has(feed)) continue;
      if (feed.probe !== null) {
        if (now - feed.probe.sentAt >= checkMs) {
          feed.probe = null;
          void this.renew(room, feed, 'lost');
        }
      } else if (now - feed.heardAt >= checkMs) {
        const token = `${PROBE_PREFIX}.${(++this.probes).toString(36)}`;
        feed.probe = { token, sentAt: now };
        this.redis.publish(roomKeys(room).channel, `\x01${token}${PROBE_PAYLOAD}`).catch(() => {
          // Redis could not take it (a shard failing over): nothing learnt; probe again later.
          if (feed.probe?.token === token) feed.probe = null;
        });
      }
    }
  }

  /**
   * Subscribes to the room again and delivers, from history, the messages its subscription
   * missed meanwhile (none twice: see `RoomFeed`). A renewal that fails is tried again at the
   * next check.
   */
  private async renew(room: string, feed: RoomFeed, cause: 'lost' | 'renewed'): Promise<void> {
    if (this.renewing.has(feed)) return;
    this.renewing.add(feed);
    try {
      await withTimeout(
        this.redis.subscribe(roomKeys(room).channel),
        SUBSCRIBE_TIMEOUT_MS,
        'Subscribing to a room again',
      );
      if (this.feeds.get(room) !== feed) return;
      await this.fill(room, feed);
      this.options.onResubscribed?.(room, cause);
    } catch {
      // Redis is not answering for this room yet; a later check tries again.
    } finally {
      feed.heardAt = performance.now();
      this.renewing.delete(feed);
    }
  }

  /**
   * Fills a feed's gap from history at once, when a message came through a subscription being
   * replaced (see `RoomFeed.takeLive`); a renewal under way fills it anyway. If Redis does not
   * answer for the room now, the next renewal does it.
   */
  private refill(room: string, feed: RoomFeed): void {
    if (this.renewing.has(feed)) return;
    this.renewing.add(feed);
    this.fill(room, feed)
      .catch(() => undefined)
      .finally(() => this.renewing.delete(feed));
  }

  /** Delivers the stored messages after the feed's resume point that it has not delivered. */
  private async fill(room: string, feed: RoomFeed): Promise<void> {
    for (let page = 0; page < FILL_PAGES; page++) {
      const { epoch, after } = feed.resumePoint;
      const result = await this.entries(room, {
        count: FILL_PAGE,
        after,
        ...(epoch === null ? {} : { epoch }),
      });
      if (this.feeds.get(room) !== feed) return;
      const first = result.messages[0];
      // Messages before this page are gone from history (trimmed, cleared, another epoch).
      if (!result.complete && first !== undefined) feed.skipTo(result.epoch, first.seq - 1);
      for (const entry of result.messages) {
        if (feed.take(result.epoch, entry.seq)) {
          const event: RoomEvent = {
            payload: messagePayload(room, messageOf(entry), result.epoch, entry.client_id),
            number: { epoch: result.epoch, seq: entry.seq },
          };
          // The sender's copy is its acknowledgement, sent once the message is durable: a gap
          // fill skips it as the live copy does, however soon after the script it reads it.
          if (entry.except_connection !== undefined) {
            event.exceptConnection = entry.except_connection;
          }
          this.listener(room, event);
        }
      }
      if (result.messages.length < FILL_PAGE) return;
    }
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
    const [text, frameHead, tail, entryHead] = appendTexts(room, message, draft.clientId, heldFor);
    const entry: AppendEntry = {
      keys: [keys.seq, keys.log, keys.epoch, keys.channel],
      args: [text, frameHead, tail, newEpoch(), entryHead],
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
    const { keys: scriptKeys, args } = this.appendCall([entry]);
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
    const { keys, args } = this.appendCall(entries);
    return append.run(client, keys, args);
  }

  private appendCall(entries: readonly AppendEntry[]) {
    return appendCall(entries, [
      this.options.historyMax,
      this.options.roomTtlSeconds,
      this.redis.publishCommand,
    ]);
  }

  async clear(room: string, sender: string): Promise<void> {
    const keys = roomKeys(room);
    // Messages sent before the clear are stored before it.
    this.batch?.flush();
    const started = performance.now();
    await clear.run(
      this.redis.coalescedWriter(),
      [keys.seq, keys.log, keys.epoch, keys.channel, keys.cleared],
      [clearedPayload(room, sender), this.redis.publishCommand, this.options.roomTtlSeconds],
    );
    this.roundTrip('clear', started);
  }

  async history(room: string, query: HistoryQuery): Promise<HistoryPage> {
    const page = await this.entries(room, query);
    return { ...page, messages: page.messages.map(messageOf) };
  }

  /** The room's history as stored, each entry with its sender's `client_id`. */
  private async entries(
    room: string,
    query: HistoryQuery,
  ): Promise<HistoryPage & { messages: StoredEntry[] }> {
    const keys = roomKeys(room);
    const started = performance.now();
    const [complete, entries, epoch] = (await history.run(
      this.redis.coalesced(),
      [keys.seq, keys.log, keys.epoch, keys.cleared],
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

  async publish(room: string, event: RoomEvent): Promise<void> {
    const started = performance.now();
    await this.redis.publish(roomKeys(room).channel, encodeEnvelope(event));
    this.roundTrip('publish', started);
  }

  private roundTrip(command: RedisChatCommand, started: number): void {
    this.options.onRoundTrip?.(command, (performance.now() - started) / 1000);
  }

  async subscribe(room: string): Promise<void> {
    if (this.redis.subscriber.status !== 'ready')
      throw new Error('The Redis subscriber is not connected');
    // Where the room's sequence stands before the subscription starts: members read what came
    // before from history themselves; a gap fill only ever delivers what came after.
    const keys = roomKeys(room);
    const [seq, epoch] = await this.redis.coalesced().mget(keys.seq, keys.epoch);
    this.feeds.set(
      room,
      new RoomFeed(seq === null ? null : (epoch ?? null), Number(seq ?? 0), performance.now()),
    );
    await withTimeout(
      this.redis.subscribe(roomKeys(room).channel),
      SUBSCRIBE_TIMEOUT_MS,
      'Subscribing to a room',
    );
  }

  async unsubscribe(room: string): Promise<void> {
    this.feeds.delete(room);
    await this.redis.unsubscribe(roomKeys(room).channel);
  }

  onDelivery(listener: DeliveryListener): void {
    this.listener = listener;
  }

  async hasRoom(room: string): Promise<boolean> {
    const keys = roomKeys(room);
    // Both keys carry the room's hash tag: one slot, so one command on a cluster too.
    return (await this.redis.coalesced().exists(keys.seq, keys.log)) > 0;
  }

  async isReady(): Promise<boolean> {
    return this.redis.isConnected && (await this.redis.canWrite());
  }
}
