/**
 * The workload definitions shared by the k6 scripts and the Node benchmark (workloads.json), typed,
 * and scaled for a run of the benchmark.
 */
import definitions from './workloads.json';

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

export type BenchPlan = ReturnType<typeof benchPlan>;
export type IdleWorkload = BenchPlan['idle'];
/**
 * The many-rooms workload on Taco Chat twice, on one standalone Redis and on a Redis Cluster of
 * `masters` masters (one replica each), at the same fixed rates.
 */
export type ClusterWorkload = BenchPlan['cluster'];
/** Classic `PUBLISH` against `SPUBLISH` on Redis Clusters of each size in `masters`. */
export type PubSubWorkload = BenchPlan['pubsub'];

const atLeast = (min: number, value: number) => Math.max(min, Math.round(value));

/**
 * The sizes of one run: `scale` shrinks the crowd (rooms, members and connections; 1 = the sizes
 * of workloads.json), never the per-room rates. `smoke`: tiny sizes, one-second steps, which only
 * prove every part works.
 */
export function benchPlan(scale: number, smoke: boolean) {
  const { bench: b, fanout: f, manyRooms: m, idle: i, cluster: c, pubsub: p } = definitions;
  const steps = smoke
    ? { stepSeconds: 1, halfLoadSeconds: 1 }
    : { stepSeconds: b.stepSeconds, halfLoadSeconds: b.halfLoadSeconds };
  const fanMembers = smoke ? 20 : atLeast(f.senders * 2, f.members * scale);
  const fanout: RateWorkload = {
    id: 'fanout',
    title: smoke
      ? 'fan-out (smoke)'
      : `fan-out: ${f.rooms} room × ${fanMembers} members, ${f.senders} senders, ${f.replicas} replicas`,
    rooms: smoke ? 1 : f.rooms,
    members: fanMembers,
    senders: smoke ? 2 : f.senders,
    replicas: f.replicas,
    roomRates: smoke ? [5, 10] : f.roomMessagesPerSecond,
    ...steps,
  };
  const rooms = smoke ? 10 : atLeast(10, m.rooms * scale);
  const manyRooms: RateWorkload = {
    id: 'manyRooms',
    title: smoke
      ? 'many rooms (smoke)'
      : `many rooms: ${rooms} rooms × ${m.members} members, ${m.replicas} replicas`,
    rooms,
    members: smoke ? 3 : m.members,
    senders: smoke ? 1 : m.sendersPerRoom,
    replicas: m.replicas,
    roomRates: smoke ? [1, 2] : m.roomMessagesPerSecond,
    ...steps,
  };
  const connections = smoke ? 100 : atLeast(100, i.connections * scale);
  const pubsub = smoke
    ? {
        masters: [3],
        subscribersPerChannel: [1, 2],
        channels: 12,
        messagesPerSecond: 200,
        seconds: 1,
      }
    : p;
  return {
    scale,
    smoke,
    fanout,
    manyRooms,
    idle: {
      id: 'idle' as const,
      title: smoke ? 'idle (smoke)' : `idle: ${connections} connections on one replica`,
      connections,
      members: smoke ? 5 : i.members,
      replicas: smoke ? 1 : i.replicas,
    },
    cluster: {
      id: 'cluster' as const,
      title:
        `many rooms on a ${c.masters}-master Redis Cluster beside one Redis: ${rooms} rooms × ` +
        `${manyRooms.members} members, ${m.replicas} replicas${smoke ? ' (smoke)' : ''}`,
      rooms: manyRooms,
      masters: c.masters,
      roomRates: smoke ? [1, 2] : c.roomMessagesPerSecond,
      stepSeconds: smoke ? 1 : c.stepSeconds,
    },
    pubsub: {
      id: 'pubsub' as const,
      title: smoke
        ? 'PUBLISH vs SPUBLISH (smoke)'
        : `PUBLISH vs SPUBLISH: ${p.channels} channels, ${p.messagesPerSecond} messages/s for ${p.seconds} s`,
      ...pubsub,
    },
    // Smoke: the drain ends once every message arrived, so a long bound costs nothing when all is well.
    drainMs: smoke ? 5000 : b.drainMs,
    bodyBytes: definitions.message.bodyBytes,
    clientSaturation: b.clientSaturation,
    p99LimitMs: definitions.slo.p99Ms,
    /** Fractions of each workload's capacity at which a step runs after the search. */
    loadFractions: b.loadFractions,
  };
}
