import { performance } from 'node:perf_hooks';
import { type ChatMessage, FrameType } from '@taco/protocol';
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
import { clearedPayload } from '../room-events';
import { decodeEnvelope, encodeEnvelope } from './envelope';
import { LuaScript } from './lua-script';
import { type RedisConnections, SUBSCRIBE_TIMEOUT_MS, withTimeout } from './redis-connections';
import { roomKeys, roomOfChannel } from './redis-keys';
import { APPEND_SCRIPT, CLEAR_SCRIPT, HISTORY_SCRIPT } from './scripts';

export interface RedisChatBusOptions {
  historyMax: number;
  roomTtlSeconds: number;
  /** Told how long each chat command took from sending to its reply (metrics). */
  onRoundTrip?: (command: RedisChatCommand, seconds: number) => void;
}

export type RedisChatCommand = 'append' | 'clear' | 'history' | 'publish';

/** A `seq` the server never assigns, marking where the script puts the real one. */
const PLACEHOLDER_SEQ = -1;
const SEQ_FIELD = '"seq":';
/** In a stored message: the `seq`. */
const SEQ_MARK = `${SEQ_FIELD}${PLACEHOLDER_SEQ}`;

/**
 * The JSON around a mark that starts with `"seq":`: [up to the number, after the mark]. A string
 * value cannot hold the mark (its quotes would be escaped), and the field comes after them anyway.
 */
function splitAt(json: string, mark: string): [string, string] {
  const at = json.lastIndexOf(mark);
  return [json.slice(0, at + SEQ_FIELD.length), json.slice(at + mark.length)];
}

/**
 * The texts the append script joins: the stored message's JSON around its `seq`, and the live
 * frame's JSON around its `seq` and `epoch` (the script writes `<seq>,"epoch":"<epoch>"` between
 * them), in `messagePayload`'s field order. The message is serialized once: the frame is the same
 * JSON with its `type` and `room` in front and its `client_id` after the epoch.
 */
export function appendTexts(
  room: string,
  message: ChatMessage,
  clientId: string | undefined,
): [storedHead: string, storedTail: string, payloadHead: string, payloadTail: string] {
  const [storedHead, storedTail] = splitAt(JSON.stringify(message), SEQ_MARK);
  const payloadHead = `{"type":${FrameType.Message},"room":${JSON.stringify(room)},${storedHead.slice(1)}`;
  const payloadTail =
    clientId === undefined ? storedTail : `,"client_id":${JSON.stringify(clientId)}${storedTail}`;
  return [storedHead, storedTail, payloadHead, payloadTail];
}

const append = new LuaScript(APPEND_SCRIPT);
const clear = new LuaScript(CLEAR_SCRIPT);
const history = new LuaScript(HISTORY_SCRIPT);

/**
 * The scaled driver: history in a Redis list per room, `seq` from INCR, fan-out through one
 * channel per room. Storing and publishing a message is one Lua script.
 */
export class RedisChatBus extends ChatBus {
  private listener: DeliveryListener = () => undefined;

  constructor(
    private readonly redis: RedisConnections,
    private readonly options: RedisChatBusOptions,
  ) {
    super();
    redis.onMessage((channel, payload) => {
      const room = roomOfChannel(channel.toString('utf8'));
      const event = decodeEnvelope(payload);
      if (room !== null && event !== null) this.listener(room, event);
    });
  }

  async append(room: string, draft: MessageDraft): Promise<StoredMessage> {
    const keys = roomKeys(room);
    const message: ChatMessage = {
      sender: draft.sender,
      body: draft.body,
      timestamp: draft.timestamp,
      seq: PLACEHOLDER_SEQ,
    };
    const [storedHead, storedTail, payloadHead, payloadTail] = appendTexts(
      room,
      message,
      draft.clientId,
    );
    const started = performance.now();
    const [seq, epoch] = (await append.run(
      this.redis.coalesced(),
      [keys.seq, keys.log, keys.epoch, keys.channel],
      [
        storedHead,
        storedTail,
        payloadHead,
        payloadTail,
        this.options.historyMax,
        this.options.roomTtlSeconds,
        this.redis.publishCommand,
        newEpoch(),
      ],
    )) as [number, string];
    this.roundTrip('append', started);
    return { ...message, seq, epoch };
  }

  async clear(room: string, sender: string): Promise<void> {
    const keys = roomKeys(room);
    const started = performance.now();
    await clear.run(
      this.redis.coalesced(),
      [keys.seq, keys.log, keys.epoch, keys.channel],
      [clearedPayload(room, sender), this.redis.publishCommand, this.options.roomTtlSeconds],
    );
    this.roundTrip('clear', started);
  }

  async history(room: string, query: HistoryQuery): Promise<HistoryPage> {
    const keys = roomKeys(room);
    const started = performance.now();
    const [complete, entries, epoch] = (await history.run(
      this.redis.coalesced(),
      [keys.seq, keys.log, keys.epoch],
      [query.count, query.after ?? '', query.epoch ?? '', newEpoch(), this.options.roomTtlSeconds],
    )) as [number, string[], string];
    this.roundTrip('history', started);
    return {
      epoch,
      messages: entries.map((entry) => JSON.parse(entry) as ChatMessage),
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
    await withTimeout(
      this.redis.subscribe(roomKeys(room).channel),
      SUBSCRIBE_TIMEOUT_MS,
      'Subscribing to a room',
    );
  }

  async unsubscribe(room: string): Promise<void> {
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
    if (!this.redis.isConnected) return false;
    try {
      return (await this.redis.command.ping()) === 'PONG';
    } catch {
      return false;
    }
  }
}
