import { performance } from 'node:perf_hooks';
import {
  ChatBus,
  type DeliveryListener,
  type HistoryPage,
  type HistoryQuery,
  type MessageDraft,
  type RoomEvent,
  type StoredMessage,
} from '../chat-bus.port';
import { encodeEnvelope } from './envelope';
import { type RedisConnections } from './redis-connections';
import { roomKeys } from './redis-keys';
import { RedisMessageLog, type RedisMessageLogOptions } from './redis-message-log';
import {
  RedisRoomSubscriptions,
  type RedisRoomSubscriptionsOptions,
} from './redis-room-subscriptions';

export type { RedisChatCommand } from './redis-message-log';

export type RedisChatBusOptions = RedisMessageLogOptions & RedisRoomSubscriptionsOptions;

/**
 * The scaled driver: history in a Redis list per room, `seq` from INCR, fan-out through one
 * channel per room. Storing and publishing a message is one Lua script, run on the writer
 * connection: a message is acknowledged, or refused as not stored, only by Redis's answer.
 * Storage is the `RedisMessageLog`'s; the subscriptions, and their upkeep, the
 * `RedisRoomSubscriptions`'.
 */
export class RedisChatBus extends ChatBus {
  private readonly log: RedisMessageLog;
  private readonly subscriptions: RedisRoomSubscriptions;

  constructor(
    private readonly redis: RedisConnections,
    options: RedisChatBusOptions,
  ) {
    super();
    this.log = new RedisMessageLog(redis, options);
    this.subscriptions = new RedisRoomSubscriptions(redis, this.log, options);
  }

  /** Stops checking subscriptions (the connections are closed by their owner). */
  stop(): void {
    this.subscriptions.stop();
  }

  append(room: string, draft: MessageDraft): Promise<StoredMessage> {
    return this.log.append(room, draft);
  }

  clear(room: string, sender: string): Promise<void> {
    return this.log.clear(room, sender);
  }

  history(room: string, query: HistoryQuery): Promise<HistoryPage> {
    return this.log.history(room, query);
  }

  async publish(room: string, event: RoomEvent): Promise<void> {
    const started = performance.now();
    await this.redis.publish(roomKeys(room).channel, encodeEnvelope(event));
    this.log.roundTrip('publish', started);
  }

  subscribe(room: string): Promise<void> {
    return this.subscriptions.subscribe(room);
  }

  unsubscribe(room: string): Promise<void> {
    return this.subscriptions.unsubscribe(room);
  }

  onDelivery(listener: DeliveryListener): void {
    this.subscriptions.onDelivery(listener);
  }

  onResubscribed(listener: (room: string) => void): void {
    this.subscriptions.onResubscribedRoom(listener);
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
