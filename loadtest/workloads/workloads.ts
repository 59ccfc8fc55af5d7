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

/**
 * The many-rooms workload on Taco Chat twice, on one standalone Redis and on a Redis Cluster of
 * `masters` masters (one replica each), at the same fixed rates.
 */
export interface ClusterWorkload {
  id: 'cluster';
  title: string;
  rooms: RateWorkload;
  masters: number;
  roomRates: number[];
  stepSeconds: number;
}

/** Classic `PUBLISH` against `SPUBLISH` on Redis Clusters of each size in `masters`. */
export interface PubSubWorkload {
  id: 'pubsub';
  title: string;
  masters: number[];
  /** Subscriber connections per channel: one run with each (a room's replicas). */
  subscribersPerChannel: number[];
  channels: number;
  messagesPerSecond: number;
  seconds: number;
}

export interface BenchPlan {
  /** Factor applied to rooms, members and connections (1 = the sizes of workloads.json). */
  scale: number;
  smoke: boolean;
  fanout: RateWorkload;
  manyRooms: RateWorkload;
  idle: IdleWorkload;
  cluster: ClusterWorkload;
  pubsub: PubSubWorkload;
  drainMs: number;
  bodyBytes: number;
  clientSaturation: number;
  p99LimitMs: number;
  /** Fractions of each workload's capacity at which a step runs after the search. */
  loadFractions: number[];
}

const atLeast = (min: number, value: number) => Math.max(min, Math.round(value));

function clusterWorkload(
  rooms: RateWorkload,
  masters: number,
  roomRates: number[],
  stepSeconds: number,
  note: string,
): ClusterWorkload {
  return {
    id: 'cluster',
    title:
      `many rooms on a ${masters}-master Redis Cluster beside one Redis: ${rooms.rooms} rooms × ` +
      `${rooms.members} members, ${rooms.replicas} replicas${note ? ` (${note})` : ''}`,
    rooms,
    masters,
    roomRates,
    stepSeconds,
  };
}

/** The sizes of one run: `scale` shrinks the crowd, never the per-room rates. */
export function benchPlan(scale: number, smoke: boolean): BenchPlan {
  const w = WORKLOADS;
  const b = w.bench;
  const f = w.fanout;
  const m = w.manyRooms;
  const i = w.idle;
  const c = w.cluster;
  const p = w.pubsub;
  const rooms = atLeast(10, m.rooms * scale);
  const manyRooms: RateWorkload = {
    id: 'manyRooms',
    title: `many rooms: ${rooms} rooms × ${m.members} members, ${m.replicas} replicas`,
    rooms,
    members: m.members,
    senders: m.sendersPerRoom,
    replicas: m.replicas,
    roomRates: m.roomMessagesPerSecond,
    stepSeconds: b.stepSeconds,
    halfLoadSeconds: b.halfLoadSeconds,
  };
  const members = atLeast(f.senders * 2, f.members * scale);
  const connections = atLeast(100, i.connections * scale);
  const plan: BenchPlan = {
    scale,
    smoke,
    fanout: {
      id: 'fanout',
      title: `fan-out: ${f.rooms} room × ${members} members, ${f.senders} senders, ${f.replicas} replicas`,
      rooms: f.rooms,
      members,
      senders: f.senders,
      replicas: f.replicas,
      roomRates: f.roomMessagesPerSecond,
      stepSeconds: b.stepSeconds,
      halfLoadSeconds: b.halfLoadSeconds,
    },
    manyRooms,
    idle: {
      id: 'idle',
      title: `idle: ${connections} connections on one replica`,
      connections,
      members: i.members,
      replicas: i.replicas,
    },
    cluster: clusterWorkload(manyRooms, c.masters, c.roomMessagesPerSecond, c.stepSeconds, ''),
    pubsub: {
      id: 'pubsub',
      title: `PUBLISH vs SPUBLISH: ${p.channels} channels, ${p.messagesPerSecond} messages/s for ${p.seconds} s`,
      masters: p.masters,
      subscribersPerChannel: p.subscribersPerChannel,
      channels: p.channels,
      messagesPerSecond: p.messagesPerSecond,
      seconds: p.seconds,
    },
    drainMs: b.drainMs,
    bodyBytes: w.message.bodyBytes,
    clientSaturation: b.clientSaturation,
    p99LimitMs: w.slo.p99Ms,
    loadFractions: b.loadFractions,
  };
  if (!smoke) return plan;
  // Tiny sizes, one-second steps: proves every part works.
  const short = { stepSeconds: 1, halfLoadSeconds: 1 };
  const manyRoomsSmoke: RateWorkload = {
    ...manyRooms,
    ...short,
    title: 'many rooms (smoke)',
    rooms: 10,
    members: 3,
    senders: 1,
    roomRates: [1, 2],
  };
  return {
    ...plan,
    fanout: {
      ...plan.fanout,
      ...short,
      title: 'fan-out (smoke)',
      rooms: 1,
      members: 20,
      senders: 2,
      roomRates: [5, 10],
    },
    manyRooms: manyRoomsSmoke,
    idle: { id: 'idle', title: 'idle (smoke)', connections: 100, members: 5, replicas: 1 },
    cluster: clusterWorkload(manyRoomsSmoke, c.masters, [1, 2], 1, 'smoke'),
    pubsub: {
      ...plan.pubsub,
      title: 'PUBLISH vs SPUBLISH (smoke)',
      masters: [3],
      subscribersPerChannel: [1, 2],
      channels: 12,
      messagesPerSecond: 200,
      seconds: 1,
    },
    // The drain ends once every message arrived: a long bound costs nothing when all is well.
    drainMs: 5000,
  };
}
