/** Messages between the reconnect storm (parent) and its member processes. */
import { type MemberReport } from '../client';
import { type ChildLifecycle } from '../ipc-process';

export interface StormRoom {
  room: string;
  /** Member names; the first one sends the room's messages. */
  names: string[];
}

/** `warm`: before the kill; `storm`: from the kill until every member has resumed; `after`. */
export type StormPhase = 'warm' | 'storm' | 'after';

export const STORM_PHASES: readonly StormPhase[] = ['warm', 'storm', 'after'];

export type StormParentMessage =
  | { type: 'connect'; baseUrl: string; rooms: StormRoom[]; concurrency: number }
  | { type: 'traffic'; messagesPerSecondPerRoom: number; bodyBytes: number }
  | { type: 'phase'; phase: StormPhase }
  | { type: 'status' }
  | { type: 'quiet' }
  | { type: 'report' }
  | { type: 'close' };

export type StormChildMessage =
  | ChildLifecycle
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
      /** Live messages received by members never disconnected (bystanders), by phase. */
      bystanderMessages: Record<StormPhase, number>;
      /** What the process's measure module (the bench's) recorded, if one was loaded. */
      measured: unknown;
    };

/**
 * What a storm member process may load (`STORM_MEASURE`, a module exporting `measure`): hooks
 * for the bench's measurements, run in the member processes.
 */
export interface StormMeasure {
  /** The body of a sender's n-th message (default: `n` padded to the body size). */
  body?(n: number, bytes: number): string;
  /** A live message to a member never disconnected so far. */
  bystander?(frame: { body: string }): void;
  phase?(next: StormPhase): void;
  report?(): unknown;
}
