import { type ChatMessage } from '@taco/protocol';
import { clearedFrame, messageFrame } from '../bus.frames';
import {
  ChatBus,
  type DeliveryListener,
  type HistoryPage,
  type HistoryQuery,
  type MessageDraft,
  type RoomEvent,
} from '../chat-bus.port';
import { decodeEnvelope, encodeEnvelope } from './envelope';
import { LuaScript } from './lua-script';
import { type RedisConnections, SUBSCRIBE_TIMEOUT_MS, withTimeout } from './redis-connections';
import { roomKeys, roomOfChannel } from './redis-keys';
import { APPEND_SCRIPT, CLEAR_SCRIPT, HISTORY_SCRIPT } from './scripts';

export interface RedisChatBusOptions {
  historyMax: number;
  roomTtlSeconds: number;
}

/** A `seq` the server never assigns, marking where the script puts the real one. */
const SEQ_MARK = '"seq":-1';
const PLACEHOLDER_SEQ = -1;

/** The JSON around a message's `seq`: [before the number, after it]. */
function splitAtSeq(json: string): [string, string] {
  const at = json.lastIndexOf(SEQ_MARK);
  const cut = at + SEQ_MARK.length - 2;
  return [json.slice(0, cut), json.slice(cut + 2)];
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
    redis.subscriber.on('messageBuffer', (channel: Buffer, payload: Buffer) => {
      const room = roomOfChannel(channel.toString('utf8'));
      const event = decodeEnvelope(payload);
      if (room !== null && event !== null) this.listener(room, event);
    });
  }

  async append(room: string, draft: MessageDraft): Promise<ChatMessage> {
    const keys = roomKeys(room);
    const message: ChatMessage = {
      sender: draft.sender,
      body: draft.body,
      timestamp: draft.timestamp,
      seq: PLACEHOLDER_SEQ,
    };
    const [storedHead, storedTail] = splitAtSeq(JSON.stringify(message));
    const [frameHead, frameTail] = splitAtSeq(messageFrame(room, message, draft.clientId));
    const seq = await append.run(
      this.redis.coalesced(),
      [keys.seq, keys.log],
      [
        storedHead,
        storedTail,
        frameHead,
        frameTail,
        this.options.historyMax,
        this.options.roomTtlSeconds,
        keys.channel,
      ],
    );
    return { ...message, seq: Number(seq) };
  }

  async clear(room: string, sender: string): Promise<void> {
    const keys = roomKeys(room);
    await clear.run(
      this.redis.coalesced(),
      [keys.seq, keys.log],
      [clearedFrame(room, sender), keys.channel, this.options.roomTtlSeconds],
    );
  }

  async history(room: string, query: HistoryQuery): Promise<HistoryPage> {
    const keys = roomKeys(room);
    const [complete, entries] = (await history.run(
      this.redis.coalesced(),
      [keys.seq, keys.log],
      [query.count, query.after ?? ''],
    )) as [number, string[]];
    return {
      complete: complete === 1,
      messages: entries.map((entry) => JSON.parse(entry) as ChatMessage),
    };
  }

  async publish(room: string, event: RoomEvent): Promise<void> {
    await this.redis.coalesced().publish(roomKeys(room).channel, encodeEnvelope(event));
  }

  async subscribe(room: string): Promise<void> {
    if (this.redis.subscriber.status !== 'ready')
      throw new Error('The Redis subscriber is not connected');
    await withTimeout(
      this.redis.subscriber.subscribe(roomKeys(room).channel),
      SUBSCRIBE_TIMEOUT_MS,
      'Subscribing to a room',
    );
  }

  async unsubscribe(room: string): Promise<void> {
    await this.redis.subscriber.unsubscribe(roomKeys(room).channel);
  }

  onDelivery(listener: DeliveryListener): void {
    this.listener = listener;
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
