/**
 * The workload definitions shared by the k6 scripts and the Node benchmark (workloads.json), typed,
 * and scaled for a run of the benchmark.
 */
import definitions from './workloads.json';

export type Workloads = typeof definitions;

export const WORKLOADS: Workloads = definitions;

/** One rate-searched workload of the benchmark, at the sizes of one run. */
export interface RateWorkload {
  id: 'fanout' | 'manyRooms';
  title: string;
  rooms: number;
  members: number;
  /** Senders in each room. */
  senders: number;
  replicas: number;
  /** Offered messages per second per room, one step each, rising. */
  roomRates: number[];
  stepSeconds: number;
  halfLoadSeconds: number;
}

export interface IdleWorkload {
  id: 'idle';
  title: string;
  connections: number;
  members: number;
  replicas: number;
}

export interface BenchPlan {
  /** Factor applied to rooms, members and connections (1 = the sizes of workloads.json). */
  scale: number;
  smoke: boolean;
  fanout: RateWorkload;
  manyRooms: RateWorkload;
  idle: IdleWorkload;
  drainMs: number;
  bodyBytes: number;
  clientSaturation: number;
  p99LimitMs: number;
}

const atLeast = (min: number, value: number) => Math.max(min, Math.round(value));

/** The sizes of one run: `scale` shrinks the crowd, never the per-room rates. */
export function benchPlan(scale: number, smoke: boolean): BenchPlan {
  const w = WORKLOADS;
  const b = w.bench;
  if (smoke) {
    return {
      scale,
      smoke,
      fanout: {
        id: 'fanout',
        title: 'fan-out (smoke)',
        rooms: 1,
        members: 20,
        senders: 2,
        replicas: 2,
        roomRates: [5, 10],
        stepSeconds: 1,
        halfLoadSeconds: 1,
      },
      manyRooms: {
        id: 'manyRooms',
        title: 'many rooms (smoke)',
        rooms: 10,
        members: 3,
        senders: 1,
        replicas: 2,
        roomRates: [1, 2],
        stepSeconds: 1,
        halfLoadSeconds: 1,
      },
      idle: { id: 'idle', title: 'idle (smoke)', connections: 100, members: 5, replicas: 1 },
      drainMs: 1000,
      bodyBytes: w.message.bodyBytes,
      clientSaturation: b.clientSaturation,
      p99LimitMs: w.slo.p99Ms,
    };
  }
  const f = w.fanout;
  const m = w.manyRooms;
  const i = w.idle;
  return {
    scale,
    smoke,
    fanout: {
      id: 'fanout',
      title: `fan-out: ${f.rooms} room × ${atLeast(f.senders * 2, f.members * scale)} members, ${f.senders} senders, ${f.replicas} replicas`,
      rooms: f.rooms,
      members: atLeast(f.senders * 2, f.members * scale),
      senders: f.senders,
      replicas: f.replicas,
      roomRates: f.roomMessagesPerSecond,
      stepSeconds: b.stepSeconds,
      halfLoadSeconds: b.halfLoadSeconds,
    },
    manyRooms: {
      id: 'manyRooms',
      title: `many rooms: ${atLeast(10, m.rooms * scale)} rooms × ${m.members} members, ${m.replicas} replicas`,
      rooms: atLeast(10, m.rooms * scale),
      members: m.members,
      senders: m.sendersPerRoom,
      replicas: m.replicas,
      roomRates: m.roomMessagesPerSecond,
      stepSeconds: b.stepSeconds,
      halfLoadSeconds: b.halfLoadSeconds,
    },
    idle: {
      id: 'idle',
      title: `idle: ${atLeast(100, i.connections * scale)} connections on one replica`,
      connections: atLeast(100, i.connections * scale),
      members: i.members,
      replicas: i.replicas,
    },
    drainMs: b.drainMs,
    bodyBytes: w.message.bodyBytes,
    clientSaturation: b.clientSaturation,
    p99LimitMs: w.slo.p99Ms,
  };
}
