import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type DeliveryListener, type RoomEvent } from '../chat-bus.port';
import { messagePayload } from '../room-events';
import { decodeEnvelope } from './envelope';
import { SUBSCRIBE_TIMEOUT_MS, type RedisConnections, withTimeout } from './redis-connections';
import { roomKeys, roomOfChannel } from './redis-keys';
import { messageOf, type RedisMessageLog } from './redis-message-log';
import { messageNumber, RoomFeed } from './room-feed';

export interface RedisRoomSubscriptionsOptions {
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
 * The Redis driver's subscriptions: one channel per room this replica serves (a shard channel on
 * a Redis Cluster), each with the `RoomFeed` of what it delivered. They are kept up: a quiet
 * room's subscription is probed now and then, and one found gone, or on a renewed subscriber
 * connection, is subscribed again and its gap filled from the message log.
 */
export class RedisRoomSubscriptions {
  private listener: DeliveryListener = () => undefined;
  private resubscribed: (room: string) => void = () => undefined;
  /** The rooms this replica subscribes to, and what their subscriptions delivered. */
  private readonly feeds = new Map<string, RoomFeed>();
  private readonly renewing = new Set<RoomFeed>();
  /**
   * Feeds whose subscriber connection was renewed while a renewal or gap fill of theirs was under
   * way: what that one subscribed to was on the old connection, so they are renewed once it ends.
   */
  private readonly renewAfter = new Set<RoomFeed>();
  /** Rooms whose subscription Redis confirmed, and that were not unsubscribed since. */
  private readonly confirmed = new Set<string>();
  private readonly checker: NodeJS.Timeout | undefined;
  private checking = false;
  private probes = 0;

  /** `log`: where gap fills read the messages a subscription missed. */
  constructor(
    private readonly redis: RedisConnections,
    private readonly log: RedisMessageLog,
    private readonly options: RedisRoomSubscriptionsOptions,
  ) {
    redis.onMessage((channel, envelope) => this.received(channel, envelope));
    redis.onSubscriberRenewed(() => {
      for (const [room, feed] of this.feeds) void this.renew(room, feed, 'renewed');
    });
    const checkMs = options.subscriptionCheckMs ?? 0;
    if (checkMs > 0) {
      this.checker = setInterval(() => void this.checkSubscriptions(checkMs), checkMs).unref();
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
    const now = performance.now();
    if (envelope[0] === PROBE_MARK) {
      // Any probe through the channel, ours or another replica's, shows the subscription works.
      if (feed) {
        feed.heardAt = now;
        feed.probe = null;
      }
      return;
    }
    const event = decodeEnvelope(envelope);
    if (event === null) return;
    if (feed) {
      feed.heardAt = now;
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
   * Checks the subscriptions per subscriber connection, not per room: Redis's count of this
   * replica's subscriptions (`CLIENT LIST TYPE pubsub`, one command per master) must not fall
   * short of those it confirmed; and while nothing at all came through from a master (the one
   * Redis) for `checkMs`, one probe published to a room's channel there must come back. A count
   * that falls short (a subscription gone without a word), or an answer that cannot be read, has
   * every quiet room probed instead. A probe that does not come back within `checkMs` has its
   * room renewed.
   */
  private async checkSubscriptions(checkMs: number): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      const now = performance.now();
      for (const [room, feed] of this.feeds) {
        if (feed.probe !== null && now - feed.probe.sentAt >= checkMs) {
          feed.probe = null;
          void this.renew(room, feed, 'lost');
        }
      }
      if (this.confirmed.size === 0) return;
      const counted = await this.redis.subscriptionCount().catch(() => null);
      if (counted === null || counted < this.confirmed.size) {
        for (const [room, feed] of this.feeds) {
          if (now - feed.heardAt >= checkMs) this.probe(room, feed);
        }
      } else {
        // Per master (one standalone): the room last heard from, probed when that is `checkMs` ago.
        const latest = new Map<string, [string, RoomFeed]>();
        for (const entry of this.feeds) {
          const shard = this.redis.shardOf(entry[0]);
          const known = latest.get(shard);
          if (!known || entry[1].heardAt > known[1].heardAt) latest.set(shard, entry);
        }
        for (const [room, feed] of latest.values()) {
          if (now - feed.heardAt >= checkMs) this.probe(room, feed);
        }
      }
    } finally {
      this.checking = false;
    }
  }

  /** Publishes a probe to the room's channel, unless one is out or the room is being renewed. */
  private probe(room: string, feed: RoomFeed): void {
    if (feed.probe !== null || this.renewing.has(feed)) return;
    const token = `${PROBE_PREFIX}.${(++this.probes).toString(36)}`;
    feed.probe = { token, sentAt: performance.now() };
    this.redis.publish(roomKeys(room).channel, `\x01${token}${PROBE_PAYLOAD}`).catch(() => {
      // Redis could not take it (a shard failing over): nothing learnt; probe again later.
      if (feed.probe?.token === token) feed.probe = null;
    });
  }

  /**
   * Subscribes to the room again and delivers, from history, the messages its subscription
   * missed meanwhile (none twice: see `RoomFeed`). A renewal that fails is tried again at the
   * next check.
   */
  private async renew(room: string, feed: RoomFeed, cause: 'lost' | 'renewed'): Promise<void> {
    if (this.renewing.has(feed)) {
      if (cause === 'renewed') this.renewAfter.add(feed);
      return;
    }
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
      this.resubscribed(room);
    } catch {
      // Redis is not answering for this room yet; a later check tries again.
    } finally {
      feed.heardAt = performance.now();
      this.settled(room, feed);
    }
  }

  /** Ends a feed's renewal or gap fill, and renews it again if its connection was renewed meanwhile. */
  private settled(room: string, feed: RoomFeed): void {
    this.renewing.delete(feed);
    if (this.renewAfter.delete(feed) && this.feeds.get(room) === feed) {
      void this.renew(room, feed, 'renewed');
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
      .finally(() => this.settled(room, feed));
  }

  /** Delivers the stored messages after the feed's resume point that it has not delivered. */
  private async fill(room: string, feed: RoomFeed): Promise<void> {
    for (let page = 0; page < FILL_PAGES; page++) {
      const { epoch, after } = feed.resumePoint;
      const result = await this.log.entries(room, {
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
    if (this.feeds.has(room)) this.confirmed.add(room);
  }

  async unsubscribe(room: string): Promise<void> {
    this.feeds.delete(room);
    this.confirmed.delete(room);
    await this.redis.unsubscribe(roomKeys(room).channel);
  }

  /** Sets the one listener that receives every delivered event. */
  onDelivery(listener: DeliveryListener): void {
    this.listener = listener;
  }

  /** Sets the one listener told of each room subscribed again, once its gap is filled. */
  onResubscribedRoom(listener: (room: string) => void): void {
    this.resubscribed = listener;
  }
}
