/** Messages between the reconnect-storm scenario (parent) and its client processes. */

export interface StormRoom {
  room: string;
  /** Member names; the first one sends the room's messages. */
  names: string[];
}

/** `warm`: before the kill; `storm`: from the kill until every client has resumed; `after`. */
export type StormPhase = 'warm' | 'storm' | 'after';

export type StormParentMessage =
  | { type: 'connect'; baseUrl: string; rooms: StormRoom[]; concurrency: number }
  | { type: 'traffic'; messagesPerSecondPerRoom: number; bodyBytes: number }
  | { type: 'phase'; phase: StormPhase }
  | { type: 'status' }
  | { type: 'quiet' }
  | { type: 'report' }
  | { type: 'close' };

/** One member's view at the end: what its list holds and what it sent that was acknowledged. */
export interface MemberReport {
  room: string;
  name: string;
  /** The list as the web client keeps it: `[epoch, seq, sender, body]`, one entry per key. */
  list: [string, number, string, string][];
  /** Own messages acknowledged (echoed with their `client_id`): `[epoch, seq, body]`. */
  acked: [string, number, string][];
  /** Bodies of own messages sent that never came back acknowledged (in flight at the kill). */
  unacknowledged: string[];
  /** A key `(epoch, seq)` that arrived again with a different message: shown twice or wrong. */
  conflicts: number;
  /** Copies of a message the list already held (absorbed by the list's key, not shown twice). */
  repeatedFrames: number;
  closes: number;
  reconnects: number;
  credentialCalls: number;
  ticketCalls: number;
  /** Wall-clock ms when each reconnect had resumed (history caught up), after a close. */
  resumedAt: number[];
  /** An attempt that ended with the client giving up. */
  gaveUp: boolean;
}

export type StormClientMessage =
  | { type: 'ready' }
  | { type: 'connected'; ok: number; failed: number; firstError: string | null }
  | {
      type: 'status';
      /** Members whose socket is not open and caught up. */
      down: number;
      /** Members that have closed at least once. */
      everClosed: number;
      /** Members that stopped reconnecting. */
      gaveUp: number;
    }
  | { type: 'quiet' }
  | {
      type: 'report';
      members: MemberReport[];
      /** Latency histograms of bystanders (never disconnected), by phase. */
      bystanders: Record<StormPhase, number[]>;
      /** This process's own event-loop delay by phase (p99 and max, ms): its share of latency. */
      eventLoop: Record<StormPhase, { p99Ms: number; maxMs: number }>;
    }
  | { type: 'closed' };
