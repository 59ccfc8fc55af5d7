import {
  type ClientFrame,
  CloseCode,
  CloseReason,
  decodeServerFrame,
  encodeFrame,
  FrameType,
  HEARTBEAT_REPLY_TIMEOUT_MS,
  PING_INTERVAL_MS,
  type ServerFrame,
} from '@taco/protocol';
import type { TimerId } from './reconnectMachine';
import type { SocketDeps } from './socketDeps';
import type { SocketConnection } from './socketFactory';

/** What a room socket reports, until it is closed from this side. */
export interface RoomSocketEvents {
  opened(): void;
  frame(frame: ServerFrame): void;
  /** The server or the network closed it (never called after `close()`). */
  closed(code: number): void;
}

type RoomSocketDeps = Pick<
  SocketDeps,
  'createSocket' | 'setInterval' | 'clearInterval' | 'setTimeout' | 'clearTimeout'
>;

/**
 * One connection to a room's socket, from open to close: sends heartbeats while open, decodes
 * frames (a frame of an unexpected shape is logged and dropped), and goes quiet once closed. A
 * connection that stays silent for `HEARTBEAT_REPLY_TIMEOUT_MS` after a heartbeat is taken for
 * dead: the browser may not notice a network that went away for minutes, the user would be told
 * nothing, and messages would wait as "Sending…".
 */
export class RoomSocket {
  private connection: SocketConnection | null = null;
  private isOpen = false;
  /** False once it closed, either way: events that still arrive are ignored. */
  private live = true;
  private heartbeat: TimerId | null = null;
  /** Set from a heartbeat until any frame arrives: the connection is dead when it fires. */
  private replyDue: TimerId | null = null;

  constructor(
    private readonly deps: RoomSocketDeps,
    url: string,
    private readonly room: string,
    private readonly events: RoomSocketEvents,
  ) {
    try {
      this.connection = deps.createSocket(url, {
        onOpen: () => this.live && this.onOpen(),
        onMessage: (text) => this.live && this.onMessage(text),
        onClose: (code) => this.live && this.onClose(code),
        onError: () => {
          if (this.live) console.error('Taco Chat: socket error in room', room);
        },
      });
    } catch (error) {
      console.error('Taco Chat: could not open the socket', error);
      this.onClose(CloseCode.Abnormal);
    }
  }

  /** Sends a frame if the socket is open; says whether it did. */
  send(frame: ClientFrame): boolean {
    if (!this.connection || !this.isOpen) return false;
    this.connection.send(encodeFrame(frame));
    return true;
  }

  /** Closes it from this side (the room was left or joined anew): no event follows. */
  close(): void {
    const connection = this.connection;
    this.stop();
    connection?.close(CloseCode.Normal, CloseReason.LeavingRoom);
  }

  private onOpen() {
    this.isOpen = true;
    this.heartbeat = this.deps.setInterval(() => this.beat(), PING_INTERVAL_MS);
    this.events.opened();
  }

  private beat() {
    if (!this.send({ type: FrameType.Heartbeat }) || this.replyDue !== null) return;
    this.replyDue = this.deps.setTimeout(() => {
      this.replyDue = null;
      const connection = this.connection;
      this.onClose(CloseCode.Abnormal);
      connection?.close(CloseCode.Normal, CloseReason.NoReply);
    }, HEARTBEAT_REPLY_TIMEOUT_MS);
  }

  /** Something came back, or the socket is gone: no reply is awaited any more. */
  private stopAwaitingReply() {
    if (this.replyDue !== null) this.deps.clearTimeout(this.replyDue);
    this.replyDue = null;
  }

  private onMessage(text: string) {
    this.stopAwaitingReply();
    const decoded = decodeServerFrame(text);
    if (decoded.ok) this.events.frame(decoded.frame);
    else console.error('Taco Chat: ignored a frame', decoded.error.message);
  }

  private onClose(code: number) {
    this.stop();
    this.events.closed(code);
  }

  private stop() {
    this.live = false;
    this.isOpen = false;
    this.connection = null;
    if (this.heartbeat !== null) this.deps.clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.stopAwaitingReply();
  }
}
