import { CloseCode, encodeFrame, SEND_BUFFER_MAX_BYTES, type ServerFrame } from '@taco/protocol';
import { WebSocket } from 'ws';
import { TokenBucket } from '../common/token-bucket';
import { type AppConfig } from '../config/app-config';
import { type MetricsService } from '../metrics/metrics.service';

/** The per-connection limits, as configured. */
export type ConnectionLimits = Pick<
  AppConfig,
  | 'messageBurst'
  | 'messagesPerSecond'
  | 'typingPerSecond'
  | 'historyRequests'
  | 'historyWindowMs'
  | 'strikesBeforeClose'
>;

const STRIKES_FORGIVEN_PER_SECOND = 1;
/** Frames are JSON text even when handed over as bytes. */
const AS_TEXT = { binary: false } as const;

/** One authenticated WebSocket in one room, with its own rate limits. */
export class ChatConnection {
  /** Resolves once the connection has joined its room; frames wait for it. */
  joined: Promise<void> = Promise.resolve();
  missedPongs = 0;
  private readonly messages: TokenBucket;
  /** The other buckets are made on first use: most connections never need them. */
  private typing: TokenBucket | undefined;
  private history: TokenBucket | undefined;
  private strikes: TokenBucket | undefined;

  constructor(
    readonly id: string,
    readonly room: string,
    readonly name: string,
    readonly ip: string,
    private readonly socket: WebSocket,
    private readonly metrics: MetricsService,
    private readonly limits: ConnectionLimits,
    now: number,
  ) {
    this.messages = new TokenBucket(limits.messageBurst, limits.messagesPerSecond, now);
  }

  get isOpen(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  allowMessage(now: number): boolean {
    return this.messages.take(now);
  }

  allowTyping(now: number): boolean {
    const { typingPerSecond } = this.limits;
    this.typing ??= new TokenBucket(Math.max(1, typingPerSecond), typingPerSecond, now);
    return this.typing.take(now);
  }

  allowHistory(now: number): boolean {
    const { historyRequests, historyWindowMs } = this.limits;
    this.history ??= new TokenBucket(
      historyRequests,
      (historyRequests * 1000) / historyWindowMs,
      now,
    );
    return this.history.take(now);
  }

  /** Counts a rate-limited frame; false once the connection has had too many. */
  strike(now: number): boolean {
    this.strikes ??= new TokenBucket(
      this.limits.strikesBeforeClose,
      STRIKES_FORGIVEN_PER_SECOND,
      now,
    );
    return this.strikes.take(now);
  }

  /**
   * Sends an already serialized frame; the same buffer goes to every recipient. A client that
   * lets more than the buffer limit pile up is closed instead of growing server memory. Returns
   * whether the frame went out.
   */
  write(data: Buffer): boolean {
    if (this.socket.readyState !== WebSocket.OPEN) return false;
    if (this.socket.bufferedAmount > SEND_BUFFER_MAX_BYTES) {
      this.close(CloseCode.TryAgainLater, 'Reading too slowly');
      return false;
    }
    this.socket.send(data, AS_TEXT);
    return true;
  }

  send(frame: ServerFrame): void {
    if (this.write(Buffer.from(encodeFrame(frame)))) this.metrics.framesOut.inc();
  }

  ping(): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.ping();
  }

  close(code: number, reason: string): void {
    if (
      this.socket.readyState !== WebSocket.OPEN &&
      this.socket.readyState !== WebSocket.CONNECTING
    ) {
      return;
    }
    this.metrics.closes.inc(code);
    this.socket.close(code, reason);
  }

  terminate(): void {
    this.socket.terminate();
  }
}
