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

interface RoomLog {
  /** Made with the room: a room forgotten and made anew (or a restarted process) has another. */
  epoch: string;
  /** The last `seq` assigned; survives clears and trims so `seq` never goes back. */
  seq: number;
  messages: ChatMessage[];
  /** The last `seq` when the room was last cleared (0: never): resuming from there is incomplete. */
  clearedAt: number;
  touchedAt: number;
}

export interface MemoryChatBusOptions {
  historyMax: number;
  roomTtlMs: number;
  now: () => number;
  /** Seconds after which a room's messages disappear (0: never; protocol/README.md §6.13). */
  disappearAfter?: (room: string) => number;
}

/** The embedded driver: history and fan-out inside this process. */
export class MemoryChatBus extends ChatBus {
  private readonly rooms = new Map<string, RoomLog>();
  private readonly subscribed = new Set<string>();
  private listener: DeliveryListener = () => undefined;

  constructor(private readonly options: MemoryChatBusOptions) {
    super();
  }

  /** The room's log, unless it expired (idle past the room TTL, nobody here subscribed). */
  private existing(room: string, now = this.options.now()): RoomLog | undefined {
    const log = this.rooms.get(room);
    if (log && this.expired(room, log, now - this.options.roomTtlMs)) {
      this.rooms.delete(room);
      return undefined;
    }
    return log;
  }

  private expired(room: string, log: RoomLog, cutoff: number): boolean {
    return log.touchedAt < cutoff && !this.subscribed.has(room);
  }

  private log(room: string, now = this.options.now()): RoomLog {
    let log = this.existing(room, now);
    if (!log) {
      log = { epoch: newEpoch(), seq: 0, messages: [], clearedAt: 0, touchedAt: now };
      this.rooms.set(room, log);
    }
    return log;
  }

  private deliver(room: string, event: RoomEvent): void {
    if (this.subscribed.has(room)) this.listener(room, event);
  }

  hasRoom(room: string): Promise<boolean> {
    return Promise.resolve(this.existing(room) !== undefined);
  }

  append(room: string, draft: MessageDraft): Promise<StoredMessage> {
    const now = this.options.now();
    const log = this.log(room, now);
    log.seq += 1;
    log.touchedAt = now;
    const message: ChatMessage = {
      sender: draft.sender,
      body: draft.body,
      timestamp: draft.timestamp,
      seq: log.seq,
    };
    log.messages.push(message);
    if (log.messages.length > this.options.historyMax) {
      log.messages.splice(0, log.messages.length - this.options.historyMax);
    }
    this.deliver(room, {
      payload: messagePayload(room, message, log.epoch, draft.clientId),
      number: { epoch: log.epoch, seq: message.seq },
    });
    return Promise.resolve({ ...message, epoch: log.epoch });
  }

  clear(room: string, sender: string): Promise<void> {
    const now = this.options.now();
    const log = this.existing(room, now);
    if (log) {
      log.messages = [];
      log.clearedAt = log.seq;
      log.touchedAt = now;
    }
    this.deliver(room, { payload: clearedPayload(room, sender) });
    return Promise.resolve();
  }

  /** Deletes the room's messages that have disappeared (§6.13); its `seq` goes on. */
  dropExpired(room: string, now = this.options.now()): void {
    const after = this.options.disappearAfter?.(room) ?? 0;
    const messages = this.rooms.get(room)?.messages;
    if (after <= 0 || !messages) return;
    const cutoff = (now - after * 1000) / 1000;
    let expired = 0;
    while (expired < messages.length && (messages[expired]?.timestamp ?? 0) <= cutoff) expired++;
    if (expired > 0) messages.splice(0, expired);
  }

  history(room: string, query: HistoryQuery): Promise<HistoryPage> {
    this.dropExpired(room);
    // Reading starts the room, so the epoch a first reader gets is the one its messages carry.
    const { epoch, messages, seq: lastSeq, clearedAt } = this.log(room);
    const last = (complete: boolean) =>
      Promise.resolve({ epoch, messages: messages.slice(-query.count), complete });
    const after = query.after;
    if (query.epoch !== undefined && query.epoch !== epoch) return last(false);
    if (after === undefined) return last(true);
    // The client knows a `seq` this room never reached: the room was lost (restart, expiry).
    if (after > lastSeq) return last(false);
    // The client holds messages a clear removed (it was away when the room was cleared).
    if (after <= clearedAt && clearedAt > 0) return last(false);
    const start = messages.findIndex((message) => message.seq > after);
    const page = start === -1 ? [] : messages.slice(start, start + query.count);
    const oldestStored = messages[0]?.seq ?? lastSeq + 1;
    return Promise.resolve({ epoch, messages: page, complete: after + 1 >= oldestStored });
  }

  publish(room: string, event: RoomEvent): Promise<void> {
    this.deliver(room, event);
    return Promise.resolve();
  }

  subscribe(room: string): Promise<void> {
    this.subscribed.add(room);
    return Promise.resolve();
  }

  unsubscribe(room: string): Promise<void> {
    this.subscribed.delete(room);
    return Promise.resolve();
  }

  onDelivery(listener: DeliveryListener): void {
    this.listener = listener;
  }

  /** Delivery within one process never loses a subscription. */
  onResubscribed(): void {}

  isReady(): Promise<boolean> {
    return Promise.resolve(true);
  }

  /**
   * Forgets rooms idle for longer than the room TTL that nobody here is subscribed to (each is
   * also forgotten when next touched after that, whichever comes first).
   */
  sweep(): number {
    const cutoff = this.options.now() - this.options.roomTtlMs;
    let removed = 0;
    for (const [room, log] of this.rooms) {
      if (this.expired(room, log, cutoff)) {
        this.rooms.delete(room);
        removed++;
      }
    }
    return removed;
  }
}
