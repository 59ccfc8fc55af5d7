import { type ServerFrame } from '@taco/protocol';
import WebSocket, { type ClientOptions } from 'ws';

const DEFAULT_TIMEOUT_MS = 2000;

export interface Closed {
  code: number;
  reason: string;
}

/** A real `ws` client that queues every frame it receives, for tests to take in order. */
export class TestClient {
  private readonly frames: ServerFrame[] = [];
  private waiter: (() => void) | undefined;
  readonly closed: Promise<Closed>;
  readonly opened: Promise<void>;

  constructor(
    readonly socket: WebSocket,
    readonly label = 'client',
  ) {
    socket.on('message', (data: Buffer) => {
      this.frames.push(JSON.parse(data.toString('utf8')) as ServerFrame);
      this.waiter?.();
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

  static connect(url: string, options?: ClientOptions, label?: string): TestClient {
    return new TestClient(new WebSocket(url, options), label);
  }

  send(frame: unknown): void {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** The first frame that matches, taken out of the queue; frames before it stay queued. */
  async next<T extends ServerFrame = ServerFrame>(
    match: (frame: ServerFrame) => boolean = () => true,
    timeoutMs = DEFAULT_TIMEOUT_MS,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.frames.findIndex(match);
      if (index !== -1) {
        const [frame] = this.frames.splice(index, 1);
        return frame as T;
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `${this.label}: no matching frame within ${timeoutMs} ms; had ${JSON.stringify(this.frames)}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = undefined;
    }
  }

  /** The next frame of a type. */
  nextOfType<T extends ServerFrame = ServerFrame>(type: number, timeoutMs?: number): Promise<T> {
    return this.next<T>((frame) => frame.type === type, timeoutMs);
  }

  /** Waits a little and returns the frames that arrived, taking them. */
  async drain(settleMs = 100): Promise<ServerFrame[]> {
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    return this.frames.splice(0);
  }

  close(): Promise<Closed> {
    if (
      this.socket.readyState === WebSocket.OPEN ||
      this.socket.readyState === WebSocket.CONNECTING
    ) {
      this.socket.close(1000);
    }
    return this.closed;
  }
}
