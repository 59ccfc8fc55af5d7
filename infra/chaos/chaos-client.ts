import {
  ApiPath,
  type ChatMessage,
  CloseCode,
  decideReconnect,
  decodeServerFrame,
  encodeFrame,
  type ClientFrame,
  FrameType,
  type ReconnectPolicy,
  type RoomCredentialsResponse,
  type ServerFrame,
} from '@taco/protocol';
import WebSocket from 'ws';

/** Faster than a browser's policy, so a scenario takes seconds; same decisions otherwise. */
const CHAOS_RECONNECT: ReconnectPolicy = {
  attempts: 20,
  intervalMs: 400,
  jitter: 0.2,
  immediateMaxDelayMs: 200,
};
const HISTORY_PAGE = 500;

export interface ClientStats {
  name: string;
  /** Seqs of this client's own messages that came back (acknowledged). */
  acked: number[];
  /** Messages that got an error frame (naming their `client_id`) instead of an echo. */
  refused: number;
  /** The bodies of those messages, to look for in history: a refused message must not be stored. */
  refusedBodies: string[];
  /** Live or history frames carrying a seq this client had already seen. */
  duplicateFrames: number;
  /** Messages the client would show twice after its dedupe by seq (the user-visible count). */
  duplicatesShown: number;
  reconnects: number;
  /** Close → socket open and caught up, per reconnect. */
  reconnectMs: number[];
  closeCodes: number[];
  errorCodes: string[];
}

/**
 * A chat client that behaves like the web client where recovery matters: it keeps the highest
 * `seq` it has seen and the room's `epoch` it belongs to, reconnects by `decideReconnect`, asks
 * for history after that `(epoch, seq)`, drops what it holds when the epoch changes (the room's
 * `seq` started again, protocol/README.md §6.1), and re-requests credentials on 4401. It records
 * what a user would have seen.
 */
export class ChaosClient {
  private socket: WebSocket | null = null;
  private token: string | null = null;
  private lastSeq = 0;
  /** The room's epoch that `lastSeq` and `feed` belong to; null until the first frame. */
  private epoch: string | null = null;
  private attempts = 0;
  private closedAt: number | null = null;
  private stopped = false;
  private nextClientId = 0;
  /** Own messages waiting for their echo: `client_id` → body. */
  private readonly pending = new Map<string, string>();
  private readonly seen = new Set<number>();
  private readonly waiters: Array<() => void> = [];
  readonly stats: ClientStats;
  /** Every message this client holds, by seq (what its feed shows). */
  readonly feed = new Map<number, ChatMessage>();
  /** Frames other than own echoes and history, for scenarios that watch for leaks. */
  readonly others: ServerFrame[] = [];
  open = false;

  constructor(
    private readonly baseUrl: string,
    readonly room: string,
    readonly name: string,
  ) {
    this.stats = {
      name,
      acked: [],
      refused: 0,
      refusedBodies: [],
      duplicateFrames: 0,
      duplicatesShown: 0,
      reconnects: 0,
      reconnectMs: [],
      closeCodes: [],
      errorCodes: [],
    };
  }

  private async credentials(): Promise<string> {
    const response = await fetch(`${this.baseUrl}${ApiPath.roomCredentials(this.room)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sender_id: this.name }),
      signal: AbortSignal.timeout(5000),
    });
    if (response.status !== 200) throw new Error(`credentials: HTTP ${response.status}`);
    return ((await response.json()) as RoomCredentialsResponse).token;
  }

  /** Connects and resolves once the first history answer arrived. */
  async connect(): Promise<void> {
    this.token ??= await this.credentials();
    await this.openSocket();
  }

  private openSocket(): Promise<void> {
    const wsUrl = `${this.baseUrl.replace(/^http/, 'ws')}${ApiPath.roomSocket(this.room, this.token ?? '')}`;
    const socket = new WebSocket(wsUrl);
    this.socket = socket;
    return new Promise((resolve, reject) => {
      let synced = false;
      // From the start, or after the last (epoch, seq) seen, a page at a time until caught up.
      const requestHistory = () =>
        this.send({
          type: FrameType.History,
          count: HISTORY_PAGE,
          after: this.lastSeq,
          ...(this.epoch === null ? {} : { epoch: this.epoch }),
        });
      socket.on('open', requestHistory);
      socket.on('message', (data: Buffer) => {
        const decoded = decodeServerFrame(data.toString('utf8'));
        if (!decoded.ok) return;
        const frame = decoded.frame;
        this.onFrame(frame);
        if (synced || frame.type !== FrameType.Message || !('messages' in frame)) return;
        if (frame.messages.length === HISTORY_PAGE) {
          requestHistory();
        } else {
          synced = true;
          this.open = true;
          this.attempts = 0;
          if (this.closedAt !== null) {
            this.stats.reconnectMs.push(Date.now() - this.closedAt);
            this.closedAt = null;
          }
          resolve();
        }
      });
      socket.on('error', () => undefined);
      socket.on('close', (code) => {
        this.open = false;
        this.stats.closeCodes.push(code);
        if (!synced) reject(new Error(`closed with ${code} before it was ready`));
        void this.onClose(code);
      });
    });
  }

  private onFrame(frame: ServerFrame): void {
    if (frame.type === FrameType.Message) {
      const messages = 'messages' in frame ? frame.messages : [frame];
      this.adoptEpoch(frame.epoch);
      if ('messages' in frame && !frame.complete) this.feed.clear();
      for (const message of messages)
        this.receive(message, 'client_id' in frame ? frame.client_id : undefined);
    } else if (frame.type === FrameType.Clear) {
      this.feed.clear();
      this.others.push(frame);
    } else if (frame.type === FrameType.Error) {
      this.stats.errorCodes.push(frame.code);
      const body = frame.client_id === undefined ? undefined : this.pending.get(frame.client_id);
      if (frame.client_id !== undefined && body !== undefined) {
        this.pending.delete(frame.client_id);
        this.stats.refused++;
        this.stats.refusedBodies.push(body);
      }
      this.others.push(frame);
    } else {
      this.others.push(frame);
    }
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** A frame of another epoch: the room's `seq` started again, so what is held goes. */
  private adoptEpoch(epoch: string): void {
    if (this.epoch === epoch) return;
    if (this.epoch !== null) {
      this.feed.clear();
      this.seen.clear();
      this.lastSeq = 0;
    }
    this.epoch = epoch;
  }

  private receive(message: ChatMessage, clientId: string | undefined): void {
    if (this.seen.has(message.seq)) {
      this.stats.duplicateFrames++;
      if (this.feed.has(message.seq) && this.feed.get(message.seq)?.body !== message.body) {
        this.stats.duplicatesShown++;
      }
    }
    this.seen.add(message.seq);
    this.feed.set(message.seq, message);
    this.lastSeq = Math.max(this.lastSeq, message.seq);
    if (clientId !== undefined && this.pending.delete(clientId)) this.stats.acked.push(message.seq);
  }

  private async onClose(code: number): Promise<void> {
    if (this.stopped) return;
    this.closedAt ??= Date.now();
    const decision = decideReconnect(code, this.attempts, Math.random, CHAOS_RECONNECT);
    if (decision.action === 'stop') return;
    if (decision.action === 'reauthenticate') this.token = null;
    const delayMs = decision.action === 'reconnect' ? decision.delayMs : 0;
    this.attempts = decision.action === 'reconnect' ? decision.attempt : this.attempts + 1;
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (this.stopped) return;
    this.stats.reconnects++;
    try {
      this.token ??= await this.credentials();
      await this.openSocket();
    } catch {
      // A socket that closed before it was ready has scheduled the next attempt already; a
      // credentials call that failed (no replica answering yet) has not.
      if (this.token === null) await this.onClose(CloseCode.Abnormal);
    }
  }

  send(frame: ClientFrame | string): boolean {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(typeof frame === 'string' ? frame : encodeFrame(frame));
    return true;
  }

  /** Sends a chat message; it counts as acknowledged when its echo comes back with a seq. */
  say(body: string): boolean {
    const clientId = `${this.name}-${++this.nextClientId}`;
    if (!this.open || !this.send({ type: FrameType.Message, body, client_id: clientId }))
      return false;
    this.pending.set(clientId, body);
    return true;
  }

  /** Resolves after the next frame arrives, or after `ms`. */
  waitForFrame(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** The underlying socket, for scenarios that need to misbehave on purpose. */
  get raw(): WebSocket | null {
    return this.socket;
  }

  close(): void {
    this.stopped = true;
    this.socket?.close(CloseCode.Normal);
  }
}

/** Every message stored in a room, read in pages through a fresh connection. */
export async function readHistory(baseUrl: string, room: string): Promise<ChatMessage[]> {
  const reader = new ChaosClient(baseUrl, room, `reader-${Date.now() % 100000}`);
  await reader.connect();
  reader.close();
  return [...reader.feed.values()].sort((a, b) => a.seq - b.seq);
}
