import { type Writable } from 'node:stream';
import {
  CloseCode,
  CloseReason,
  encodeFrame,
  errorFrame,
  FrameType,
  NAME_TAKEN_ERROR,
  SEND_BUFFER_MAX_BYTES,
  type ServerFrame,
} from '@taco/protocol';
import { WebSocket } from 'ws';
import { type MessageNumber } from '../bus/chat-bus.port';
import { type NameClaim } from '../bus/name-claim';
import { TokenBucket } from '../common/token-bucket';
import { type AppConfig } from '../config/app-config';
import { type MetricsService } from '../metrics/metrics.service';
import { PING_FRAME, textFrame } from './text-frame';
import { type OwedLimits } from './carried-limits';
import { DeliveryWindow } from './delivery-window';
import { type WriteTurn } from './write-turn';

/** The per-connection limits, as configured. */
export type ConnectionLimits = Pick<
  AppConfig,
  | 'messageBurst'
  | 'messagesPerSecond'
  | 'typingPerSecond'
  | 'historyRequests'
  | 'historyWindowMs'
  | 'strikesBeforeClose'
  | 'strikesForgivenPerSecond'
  | 'backlogGraceMs'
>;

/**
 * A promise settled already, shared by every connection that has nothing to wait for: an idle
 * connection holds no promise of its own.
 */
export const SETTLED: Promise<void> = Promise.resolve();

/** Tasks run one after the other, each once the one before has settled (failed or not). */
export class InTurn {
  /** Settles once every task given so far has settled. */
  idle: Promise<void> = SETTLED;

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.idle.then(task);
    this.idle = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

/** The connection of each open socket, for the listeners every socket shares. */
const bySocket = new WeakMap<WebSocket, ChatConnection>();

/** Shared by every socket (ws calls listeners with the socket as `this`): a pong came back. */
function onPong(this: WebSocket): void {
  const connection = bySocket.get(this);
  if (connection) connection.missedPongs = 0;
}

/** One authenticated WebSocket in one room, with its own rate limits. */
export class ChatConnection {
  /** Resolves once the connection has joined its room; frames wait for it. */
  joined: Promise<void> = SETTLED;
  /** True once `joined` has resolved: frames need not wait any more. */
  inRoom = false;
  missedPongs = 0;
  /** Renames, one at a time, each from the name the last one left. */
  readonly renames = new InTurn();
  /** History pages, one at a time, each once the one before has drained (see `drained`). */
  readonly pages = new InTurn();
  /**
   * Whether the room is end-to-end encrypted: its bodies are ciphertext (§6.12). Known once the
   * join has read the room's settings; frames wait for it (`RoomWsAdapter`).
   */
  encrypted = false;
  /**
   * Set once a room frame of a control reached this connection: the settings the join read may be
   * older than that frame, so the join sends none then (see `ChatGateway.join`).
   */
  roomFrameSent = false;
  /** The close code, once the socket has closed (for the connection's log line). */
  closeCode: number | undefined;
  /** When the connection was accepted (ms). */
  readonly openedAt: number;
  private readonly messages: TokenBucket;
  /** The other buckets are made on first use: most connections never need them. */
  private typing: TokenBucket | undefined;
  private history: TokenBucket | undefined;
  private strikes: TokenBucket | undefined;
  /** Set while one large frame has the backlog over the limit: closes the connection if it stays. */
  private backlogTimer: NodeJS.Timeout | undefined;
  /** The stored messages this connection was sent (`writeMessage`), from the first one. */
  private delivered: DeliveryWindow | undefined;

  constructor(
    readonly id: string,
    readonly room: string,
    /** The name the connection speaks as, and who holds it; a rename (frame 8) changes it. */
    public claim: NameClaim,
    readonly ip: string,
    private readonly socket: WebSocket,
    /** The TCP socket under `socket`, for frames already framed (see `writeFrame`). */
    private readonly transport: Writable,
    private readonly metrics: MetricsService,
    private readonly limits: ConnectionLimits,
    now: number,
    /** What an earlier connection of the same name in the room left unpaid (`CarriedLimits`). */
    owed?: OwedLimits,
  ) {
    this.openedAt = now;
    this.messages =
      owed?.messages ?? new TokenBucket(limits.messageBurst, limits.messagesPerSecond, now);
    this.strikes = owed?.strikes;
    bySocket.set(socket, this);
    socket.on('pong', onPong);
  }

  /** The user name the connection speaks as. */
  get name(): string {
    return this.claim.name;
  }

  /** The connection a socket was admitted as, if it was. */
  static of(socket: WebSocket): ChatConnection | undefined {
    return bySocket.get(socket);
  }

  /** Waits until the connection is in its room (see `inRoom`); false if joining failed. */
  async waitUntilInRoom(): Promise<boolean> {
    try {
      await this.joined;
      return true;
    } catch {
      return false;
    }
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

  /** The limits this connection used, for the next connection of its name (`CarriedLimits`). */
  get owed(): OwedLimits {
    return { messages: this.messages, strikes: this.strikes };
  }

  /** Counts a rate-limited frame; false once the connection has had too many. */
  strike(now: number): boolean {
    const { strikesBeforeClose, strikesForgivenPerSecond } = this.limits;
    this.strikes ??= new TokenBucket(strikesBeforeClose, strikesForgivenPerSecond, now);
    return this.strikes.take(now);
  }

  /**
   * Writes a complete WebSocket frame (`textFrame`): the same buffer goes to every member of a
   * room, one write each. It goes straight to the TCP socket, which is sound because ws writes
   * each of its own frames whole and synchronously (no compression, no queued blobs), so frames
   * never interleave, and ws counts these bytes in `bufferedAmount`. Nothing is written once ws
   * has started closing. A client that lets more than the buffer limit pile up is closed instead
   * of growing server memory. With a `turn`, frames to this socket are gathered into one write
   * until the turn ends. Returns whether the frame went out.
   */
  writeFrame(wire: Buffer, turn?: WriteTurn): boolean {
    if (this.socket.readyState !== WebSocket.OPEN || this.transport.destroyed) return false;
    // First, so that bytes the turn held back and has now sent are not taken for a backlog.
    turn?.hold(this.transport);
    const backlog = this.socket.bufferedAmount;
    if (backlog > SEND_BUFFER_MAX_BYTES) {
      this.close(CloseCode.TryAgainLater, CloseReason.ReadingTooSlowly);
      return false;
    }
    this.transport.write(wire);
    if (backlog + wire.length > SEND_BUFFER_MAX_BYTES) this.watchBacklog();
    return true;
  }

  /**
   * Writes the frame of a stored message (`writeFrame`), unless this connection was sent that
   * message already: whichever way a copy comes (the room's fan-out, a gap fill from history, the
   * sender's acknowledgement), a connection is sent each `(epoch, seq)` at most once. Returns
   * whether the frame went out.
   */
  writeMessage(wire: Buffer, number: MessageNumber, turn?: WriteTurn): boolean {
    if (!(this.delivered ??= new DeliveryWindow()).admit(number.epoch, number.seq)) {
      this.metrics.duplicateCopies.inc();
      return false;
    }
    return this.writeFrame(wire, turn);
  }

  /**
   * A frame took the backlog over the limit (a large history page, or the frame that tipped a slow
   * reader over): unless it drains back under the limit within the grace period, the connection
   * is closed as reading too slowly, so a client that asks for a large page and never reads it
   * does not hold it in server memory until the heartbeat gives up on it.
   */
  private watchBacklog(): void {
    if (this.backlogTimer !== undefined) return;
    this.backlogTimer = setTimeout(() => {
      this.backlogTimer = undefined;
      if (this.socket.bufferedAmount > SEND_BUFFER_MAX_BYTES) {
        this.close(CloseCode.TryAgainLater, CloseReason.ReadingTooSlowly);
      }
    }, this.limits.backlogGraceMs);
    this.backlogTimer.unref();
  }

  /**
   * Resolves once what waits to be sent to this connection is back under the buffer limit (at
   * once when it is): true, or false when the connection closed first (a reader that does not
   * drain within the grace period is closed, see `watchBacklog`). A history page waits for this,
   * so a client that reads at full speed may ask for large pages back to back.
   */
  async drained(): Promise<boolean> {
    while (this.isOpen && this.socket.bufferedAmount > SEND_BUFFER_MAX_BYTES) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.transport.off('drain', done);
          this.socket.off('close', done);
          resolve();
        };
        this.transport.on('drain', done);
        this.socket.on('close', done);
      });
    }
    return this.isOpen;
  }

  /**
   * Sends one frame to this connection alone; returns whether it went out. A stored message (its
   * sender's acknowledgement) goes through `writeMessage`, like the room's copies.
   */
  send(frame: ServerFrame): boolean {
    const wire = textFrame(encodeFrame(frame));
    const written =
      frame.type === FrameType.Message && 'seq' in frame
        ? this.writeMessage(wire, frame)
        : this.writeFrame(wire);
    if (!written) return false;
    this.metrics.framesOut.inc();
    return true;
  }

  /** Sends frames to this connection alone, in one write; returns how many went out. */
  sendAll(frames: readonly ServerFrame[]): number {
    this.transport.cork();
    try {
      let sent = 0;
      for (const frame of frames) if (this.send(frame)) sent++;
      return sent;
    } finally {
      this.transport.uncork();
    }
  }

  /**
   * Pings the client, written straight to the TCP socket as `writeFrame` writes (ws's own `ping`
   * builds a frame and corks the socket for each call; a quiet member's upkeep is mostly this).
   * The pong comes back through ws (`onPong`).
   */
  ping(): void {
    if (this.socket.readyState === WebSocket.OPEN && !this.transport.destroyed) {
      this.transport.write(PING_FRAME);
    }
  }

  close(code: number, reason: string): void {
    if (
      this.socket.readyState !== WebSocket.OPEN &&
      this.socket.readyState !== WebSocket.CONNECTING
    ) {
      return;
    }
    this.metrics.closes.inc({ code });
    this.socket.close(code, reason);
  }

  /**
   * Refuses the connection its name, which someone else holds: an error frame saying so (for any
   * client), then `CloseCode.NameTaken` (for a browser, which decides by the code).
   */
  refuseName(): void {
    this.send(errorFrame(NAME_TAKEN_ERROR));
    this.close(CloseCode.NameTaken, CloseReason.NameTaken);
  }

  terminate(): void {
    this.socket.terminate();
  }
}
