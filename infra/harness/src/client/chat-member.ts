/**
 * The reference chat member: the client's recovery rules written once, as the web client
 * follows them (protocol/README.md §6.2, §6.3, §6.8). It keeps its token, opens every socket with
 * a fresh single-use ticket, reconnects by protocol's `decideReconnect` (new credentials on 4401),
 * asks for history after its gap-free resume point until caught up, keeps one message per
 * `(epoch, seq)`, matches its own messages by `client_id`, and counts what a user would have seen.
 */
import {
  type ChatMessage,
  type ClientFrame,
  CloseCode,
  decideReconnect,
  decodeServerFrame,
  DEFAULT_RECONNECT_POLICY,
  encodeFrame,
  FrameType,
  HISTORY_COUNT_MAX,
  HISTORY_REQUEST_COUNT,
  type ReconnectPolicy,
  type ServerFrame,
  type ServerMessageFrame,
} from '@taco/protocol';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { credentials, socketUrl, ticket } from './http';

export interface MemberOptions {
  /** How to back off (default: the web client's, 5 s ± 20 %). */
  policy?: ReconnectPolicy;
  /** Read the room's whole history on the first open (after seq 0), not only the last page. */
  fromStart?: boolean;
  /** Called with every live message frame, after the member's own bookkeeping. */
  onLive?: (frame: ServerMessageFrame) => void;
}

/** A message as a member holds it. */
export type HeldMessage = ChatMessage & { epoch: string };

/** What one member saw, as plain data (it crosses process boundaries). */
function emptyReport(room: string, name: string) {
  return {
    room,
    name,
    /** The messages held (current epoch), one per `(epoch, seq)`. */
    list: [] as HeldMessage[],
    /** Own messages echoed with their `client_id`. */
    acked: [] as { epoch: string; seq: number; body: string }[],
    /** Bodies of own messages answered by an error frame naming their `client_id`. */
    refused: [] as string[],
    /** Bodies of own messages with neither answer (in flight at a close). */
    unacknowledged: [] as string[],
    /** A held `(epoch, seq)` that came again with another message: shown twice, or wrong. */
    conflicts: 0,
    /** Copies of a held message (a live frame a resume's page holds too, §6.3): absorbed. */
    repeatedFrames: 0,
    /** Sockets that closed after opening, and the codes of every close. */
    closes: 0,
    closeCodes: [] as number[],
    errorCodes: [] as string[],
    reconnects: 0,
    credentialCalls: 0,
    ticketCalls: 0,
    /** Per reconnect: when it had caught up (wall clock), and how long after its close. */
    resumedAt: [] as number[],
    reconnectMs: [] as number[],
    gaveUp: false,
  };
}

export type MemberReport = ReturnType<typeof emptyReport>;

export class ChatMember {
  private token: string | null = null;
  private socket: WebSocket | null = null;
  /** The resume point: every message up to this seq held without a gap (§6.2). */
  private lastSeq: number | null;
  /** A history answer has come in this epoch (an empty resume point may then move live). */
  private answered = false;
  private epoch: string | null = null;
  private attempts = 0;
  private closedAt: number | null = null;
  private stopped = false;
  private sent = 0;
  private readonly pending = new Map<string, string>();
  private readonly policy: ReconnectPolicy;
  private readonly pageSize: number;
  private firstReady: { resolve: () => void; reject: (error: Error) => void } | undefined;
  /** The messages held in the current epoch, by seq: what the member's list shows. */
  readonly feed = new Map<number, HeldMessage>();
  /** Frames other than messages, presence and room settings (errors, clears…), for leak checks. */
  readonly others: ServerFrame[] = [];
  readonly stats: MemberReport;
  /** The socket is open and history has caught up. */
  live = false;

  constructor(
    private readonly baseUrl: string,
    readonly room: string,
    readonly name: string,
    private readonly options: MemberOptions = {},
  ) {
    this.policy = options.policy ?? DEFAULT_RECONNECT_POLICY;
    this.pageSize = options.fromStart ? HISTORY_COUNT_MAX : HISTORY_REQUEST_COUNT;
    this.lastSeq = options.fromStart ? 0 : null;
    this.stats = emptyReport(room, name);
  }

  /** Starts connecting; resolves once live, rejects when it gave up or `timeoutMs` passed. */
  connect(timeoutMs = 30_000): Promise<void> {
    const ready = new Promise<void>((resolve, reject) => (this.firstReady = { resolve, reject }));
    void this.attempt();
    const late = sleep(timeoutMs, null, { ref: false }).then(() => {
      throw new Error(`${this.name} in ${this.room}: not live within ${timeoutMs} ms`);
    });
    return Promise.race([ready, late]);
  }

  private async attempt(): Promise<void> {
    try {
      if (this.token === null) {
        this.stats.credentialCalls++;
        this.token = await credentials(this.baseUrl, this.room, this.name);
      }
      this.stats.ticketCalls++;
      const single = await ticket(this.baseUrl, this.room, this.token);
      if (this.stopped) return;
      if (single === null) this.closed(CloseCode.Unauthorized);
      else this.open(socketUrl(this.baseUrl, this.room, { ticket: single }));
    } catch {
      // No replica answered the HTTP call: a failed attempt, like a dropped socket.
      this.closed(CloseCode.Abnormal);
    }
  }

  private open(url: string): void {
    const socket = new WebSocket(url, { perMessageDeflate: false });
    this.socket = socket;
    let opened = false;
    socket.on('open', () => {
      opened = true;
      this.requestHistory();
    });
    socket.on('message', (data: Buffer) => {
      const decoded = decodeServerFrame(data.toString('utf8'));
      if (decoded.ok) this.onFrame(decoded.frame);
    });
    socket.on('error', () => undefined);
    socket.on('close', (code) => {
      if (this.socket === socket) this.socket = null;
      this.stats.closeCodes.push(code);
      if (opened) {
        this.stats.closes++;
        this.closedAt ??= Date.now();
      }
      this.closed(code);
    });
  }

  /** From the last `(epoch, seq)` held, or the room's latest page when it holds nothing. */
  private requestHistory(): void {
    this.send({
      type: FrameType.History,
      count: this.pageSize,
      ...(this.lastSeq === null ? {} : { after: this.lastSeq }),
      ...(this.epoch === null ? {} : { epoch: this.epoch }),
    });
  }

  private onFrame(frame: ServerFrame): void {
    if (frame.type === FrameType.Message) {
      if ('messages' in frame) this.onHistory(frame.epoch, frame.messages, frame.complete);
      else this.onLive(frame);
    } else if (frame.type !== FrameType.Presence && frame.type !== FrameType.Room) {
      // Room settings come after every join and change (protocol/README.md §6.9): no leak.
      this.others.push(frame);
      if (frame.type === FrameType.Clear) this.feed.clear();
      if (frame.type === FrameType.Error) this.onError(frame.code, frame.client_id);
    }
  }

  private onHistory(epoch: string, messages: ChatMessage[], complete: boolean): void {
    const resuming = this.lastSeq !== null;
    this.adoptEpoch(epoch);
    // Not complete: the answer replaces what is held up to its newest seq (§6.3).
    const upTo = messages.at(-1)?.seq ?? this.lastSeq ?? 0;
    if (!complete) for (const seq of this.feed.keys()) if (seq <= upTo) this.feed.delete(seq);
    for (const message of messages) this.keep(epoch, message);
    const newest = messages.at(-1)?.seq;
    if (newest !== undefined && (!complete || this.lastSeq === null || newest > this.lastSeq)) {
      this.lastSeq = newest;
    }
    this.answered = true;
    this.advance();
    if (resuming && messages.length >= this.pageSize) {
      this.requestHistory();
      return;
    }
    this.live = true;
    this.attempts = 0;
    if (this.closedAt !== null) {
      this.stats.resumedAt.push(Date.now());
      this.stats.reconnectMs.push(Date.now() - this.closedAt);
      this.closedAt = null;
    }
    this.firstReady?.resolve();
    this.firstReady = undefined;
  }

  private onLive(frame: ServerMessageFrame): void {
    this.adoptEpoch(frame.epoch);
    this.keep(frame.epoch, frame);
    // A live message moves the resume point only when it is the next seq after it: one that
    // overtakes a history answer leaves the messages between still to come (§6.2).
    if (this.lastSeq === null ? this.answered : frame.seq === this.lastSeq + 1) {
      this.lastSeq = frame.seq;
      this.advance();
    }
    const body = frame.client_id === undefined ? undefined : this.pending.get(frame.client_id);
    if (frame.client_id !== undefined && body !== undefined) {
      this.pending.delete(frame.client_id);
      this.stats.acked.push({ epoch: frame.epoch, seq: frame.seq, body });
    }
    this.options.onLive?.(frame);
  }

  private onError(code: string, clientId: string | undefined): void {
    this.stats.errorCodes.push(code);
    const body = clientId === undefined ? undefined : this.pending.get(clientId);
    if (clientId === undefined || body === undefined) return;
    this.pending.delete(clientId);
    this.stats.refused.push(body);
  }

  /** A frame of another epoch: the room's `seq` started again, so what is held goes (§6.3). */
  private adoptEpoch(epoch: string): void {
    if (this.epoch === epoch) return;
    if (this.epoch !== null) {
      this.feed.clear();
      this.lastSeq = null;
      this.answered = false;
    }
    this.epoch = epoch;
  }

  /** One message per `(epoch, seq)`: a copy is absorbed, another message under it is a conflict. */
  private keep(epoch: string, { sender, body, timestamp, seq }: ChatMessage): void {
    const held = this.feed.get(seq);
    if (held) {
      if (held.sender === sender && held.body === body) this.stats.repeatedFrames++;
      else this.stats.conflicts++;
      return;
    }
    this.feed.set(seq, { epoch, sender, body, timestamp, seq });
  }

  /** Moves the resume point over the messages held right after it. */
  private advance(): void {
    while (this.lastSeq !== null && this.feed.has(this.lastSeq + 1)) this.lastSeq++;
  }

  private closed(code: number): void {
    this.live = false;
    if (this.stopped) return;
    const decision = decideReconnect(code, this.attempts, Math.random, this.policy);
    if (decision.action === 'reconnect') this.attempts = decision.attempt;
    // New credentials at once, counted as an attempt: a server that keeps refusing them is
    // given up on like any other.
    else if (decision.action === 'reauthenticate' && ++this.attempts <= this.policy.attempts) {
      this.token = null;
    } else {
      this.stats.gaveUp = true;
      this.firstReady?.reject(new Error(`${this.name} gave up after close ${code}`));
      return;
    }
    this.stats.reconnects++;
    const delayMs = decision.action === 'reconnect' ? decision.delayMs : 0;
    setTimeout(() => {
      if (!this.stopped) void this.attempt();
    }, delayMs);
  }

  /** Puts a frame on the open socket; false when there is none. */
  send(frame: ClientFrame | string): boolean {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(typeof frame === 'string' ? frame : encodeFrame(frame));
    return true;
  }

  /** Sends a chat message while live; it is acknowledged when its echo comes back. */
  say(body: string): boolean {
    const clientId = `${this.name}-${++this.sent}`;
    if (!this.live || !this.send({ type: FrameType.Message, body, client_id: clientId })) {
      return false;
    }
    this.pending.set(clientId, body);
    return true;
  }

  /** The held messages of the current epoch, oldest first. */
  messages(): HeldMessage[] {
    return [...this.feed.values()].sort((a, b) => a.seq - b.seq);
  }

  report(): MemberReport {
    return { ...this.stats, list: this.messages(), unacknowledged: [...this.pending.values()] };
  }

  /** Stops for good: closes the socket (`terminate` drops it without a close handshake). */
  close(terminate = false): void {
    this.stopped = true;
    this.live = false;
    if (terminate) this.socket?.terminate();
    else this.socket?.close(CloseCode.Normal);
  }
}

/** Every message stored in a room, read in pages through a member of its own. */
export async function readHistory(baseUrl: string, room: string): Promise<HeldMessage[]> {
  const reader = new ChatMember(baseUrl, room, `reader-${Date.now() % 100000}`, {
    fromStart: true,
  });
  await reader.connect();
  reader.close();
  return reader.messages();
}
