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
      /** Latency of the live messages to members never disconnected (bystanders), by phase. */
      bystanders: Record<StormPhase, number[]>;
      /** The process's own event-loop delay by phase (its share of the latency). */
      eventLoop: Record<StormPhase, { p99Ms: number; maxMs: number }>;
    };
