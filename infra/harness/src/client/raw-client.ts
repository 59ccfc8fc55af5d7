import { FrameType, type ServerFrame, type ServerMessageFrame } from '@taco/protocol';
import { EventEmitter, once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket, { type ClientOptions } from 'ws';

const DEFAULT_TIMEOUT_MS = 2000;

export interface Closed {
  code: number;
  reason: string;
}

/**
 * The connection layer: a real `ws` socket whose every frame is queued, for a test to take in
 * order, exactly as the server sent it (no dedupe, no recovery: a test that checks the server
 * never sends a frame twice reads these).
 */
export class RawClient {
  private readonly frames: ServerFrame[] = [];
  /** Emits `frame` as each one is queued. */
  private readonly arrivals = new EventEmitter();
  readonly closed: Promise<Closed>;
  readonly opened: Promise<void>;

  /**
   * `onFrame` sees every frame as it arrives; with it, frames are not queued (a long-running
   * client that only counts what it receives).
   */
  constructor(
    readonly socket: WebSocket,
    readonly label = 'client',
    onFrame?: (frame: ServerFrame) => void,
  ) {
    socket.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as ServerFrame;
      if (onFrame) return onFrame(frame);
      this.frames.push(frame);
      this.arrivals.emit('frame');
    });
    this.closed = new Promise((resolve) =>
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') })),
    );
    this.opened = new Promise((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    socket.on('error', () => undefined);
    // A refused handshake is something tests look at, not an unhandled rejection.
    this.opened.catch(() => undefined);
  }

  static connect(url: string, options?: ClientOptions, label?: string): RawClient {
    return new RawClient(new WebSocket(url, options), label);
  }

  send(frame: unknown): void {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** The first frame that matches, taken out of the queue; frames before it stay queued. */
  async next<T extends ServerFrame = ServerFrame>(
    match: (frame: ServerFrame) => boolean = () => true,
    timeoutMs = DEFAULT_TIMEOUT_MS,
  ): Promise<T> {
    const signal = AbortSignal.timeout(timeoutMs);
    for (;;) {
      const index = this.frames.findIndex(match);
      if (index !== -1) return this.frames.splice(index, 1)[0] as T;
      await once(this.arrivals, 'frame', { signal }).catch(() => {
        const had = JSON.stringify(this.frames);
        throw new Error(`${this.label}: no matching frame within ${timeoutMs} ms; had ${had}`);
      });
    }
  }

  nextOfType<T extends ServerFrame = ServerFrame>(type: number, timeoutMs?: number): Promise<T> {
    return this.next<T>((frame) => frame.type === type, timeoutMs);
  }

  /** Waits a little and returns the frames that arrived, taking them. */
  async drain(settleMs = 100): Promise<ServerFrame[]> {
    await sleep(settleMs);
    return this.frames.splice(0);
  }

  close(): Promise<Closed> {
    // CONNECTING (0) or OPEN (1): a socket already closing is left to finish.
    if (this.socket.readyState <= WebSocket.OPEN) this.socket.close(1000);
    return this.closed;
  }
}

/** Matchers for `RawClient.next`. */
export const isPresence = (sender: string, connecting: boolean) => (frame: ServerFrame) =>
  frame.type === FrameType.Presence && frame.sender === sender && frame.connecting === connecting;

/** A single (live) message, not a history batch. */
export const isLive = (frame: ServerFrame): frame is ServerMessageFrame =>
  frame.type === FrameType.Message && !('messages' in frame);

export const isHistory = (frame: ServerFrame) =>
  frame.type === FrameType.Message && 'messages' in frame;

export const isError = (code: string) => (frame: ServerFrame) =>
  frame.type === FrameType.Error && frame.code === code;
