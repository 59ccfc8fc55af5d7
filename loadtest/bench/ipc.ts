/** Messages between the benchmark (parent) and its load-client processes, and the pool of them. */
import { resolve } from 'node:path';
import { type ChildLifecycle, IpcPool } from '@taco/harness';

/** How a client speaks to a server: Taco Chat's protocol with a token, the same frames with a
 * name instead of a token (the raw peer), or Socket.IO events carrying the same frames. */
export type ClientKind = 'taco' | 'raw' | 'socketio';

export interface ConnSpec {
  /** Index of the connection within the whole workload. */
  id: number;
  port: number;
  /** Where to ask for credentials (Taco Chat), when not `port`. */
  httpPort?: number;
  room: string;
  name: string;
}

export interface SenderPlan {
  /** Index into the client's own connection list. */
  conn: number;
  perSecond: number;
}

export type ParentMessage =
  | { type: 'connect'; kind: ClientKind; conns: ConnSpec[]; concurrency: number }
  | {
      type: 'step';
      step: number;
      senders: SenderPlan[];
      durationMs: number;
      bodyBytes: number;
    }
  | { type: 'peek' }
  | { type: 'collect'; step: number }
  | { type: 'close' };

export type ClientMessage =
  | ChildLifecycle
  | {
      type: 'sent';
      step: number;
      sentByRoom: Record<string, number>;
      /** The client's own CPU seconds and wall seconds while it was sending. */
      cpuSeconds: number;
      wallSeconds: number;
    }
  | { type: 'count'; received: number }
  | {
      type: 'stats';
      step: number;
      received: number;
      histogram: number[];
      cpuSeconds: number;
      wallSeconds: number;
      errors: number;
      closed: number;
    };

/** The load-client processes of one workload run (load-client.ts), answering the same requests. */
export type LoadClients = IpcPool<ParentMessage, ClientMessage>;

export function loadClients(count: number): LoadClients {
  return new IpcPool(resolve(__dirname, 'load-client.ts'), 'load client', count);
}
