/**
 * The workload definitions shared by the k6 scripts and the Node benchmark (workloads.json), typed,
 * and scaled for a run of the benchmark.
 */
import { PING_INTERVAL_MS } from '@taco/protocol';
import type { Arrivals } from '../bench/load-client';
import definitions from './workloads.json';

export type BenchPlan = ReturnType<typeof benchPlan>;
/** One rate-searched workload of the benchmark, at the sizes of one run. */
export type RateWorkload = BenchPlan['fanout'];

/**
 * The sizes of one run: `scale` shrinks the crowd (rooms, members and connections; 1 = the sizes
 * of workloads.json), never the per-room rates. `smoke`: the tiny sizes of `benchSmoke`, one-second
 * steps, which only prove every part works. `upkeep` shortens the upkeep's warm-up and windows.
 */
export function benchPlan(
  scale: number,
  smoke: boolean,
  upkeep: { warmup?: number | undefined; window?: number | undefined } = {},
) {
  const tiny = definitions.benchSmoke;
  const pick = <K extends keyof typeof tiny>(key: K) => ({
    ...definitions[key],
    ...(smoke ? tiny[key] : {}),
  });
  const [b, f, m, i] = [pick('bench'), pick('fanout'), pick('manyRooms'), pick('idle')];
  const [c, p, u] = [pick('cluster'), pick('pubsub'), pick('upkeep')];
  /** A crowd's size: as in the file when smoke, else scaled, and at least `min`. */
  const sized = (value: number, min: number) =>
    smoke ? value : Math.max(min, Math.round(value * scale));
  const named = (title: string, full: string) => (smoke ? `${title} (smoke)` : `${title}: ${full}`);
  /**
   * A rate-searched workload: `roomRates`, offered messages per second per room, one step each,
   * rising; `arrivals`, how each sender's messages arrive, and the seed of Poisson arrivals.
   */
  const rated = (
    id: 'fanout' | 'manyRooms' | 'manyRoomsPoisson',
    title: string,
    crowd: { rooms: number; members: number; senders: number; replicas: number },
    roomRates: number[],
    arrivals: { mode: Arrivals; seed: number } = { mode: 'fixed', seed: 0 },
  ) => {
    const { stepSeconds, halfLoadSeconds } = b;
    return { id, title, ...crowd, roomRates, stepSeconds, halfLoadSeconds, arrivals };
  };
  const [fanMembers, { rooms: fanRooms, senders, replicas }] = [sized(f.members, f.senders * 2), f];
  const fanout = rated(
    'fanout',
    named(
      'fan-out',
      `${fanRooms} room × ${fanMembers} members, ${senders} senders, ${replicas} replicas`,
    ),
    { rooms: fanRooms, members: fanMembers, senders, replicas },
    f.roomMessagesPerSecond,
  );
  const rooms = sized(m.rooms, 10);
  const manyCrowd = { rooms, members: m.members, senders: m.sendersPerRoom, replicas: m.replicas };
  const many = (title: string) =>
    named(title, `${rooms} rooms × ${m.members} members, ${m.replicas} replicas`);
  const manyRooms = rated('manyRooms', many('many rooms'), manyCrowd, m.roomMessagesPerSecond);
  const connections = sized(i.connections, 100);
  const window = upkeep.window ?? u.windowSeconds;
  // The servers ping every member at once each ping interval: a window of whole intervals holds
  // the same number of those rounds whenever it starts (one of 40 s held one or two).
  if (!smoke && (window * 1000) % PING_INTERVAL_MS !== 0) {
    throw new Error(
      `The upkeep window (--window or workloads.json), ${window} s, must be a multiple of the ping interval (${PING_INTERVAL_MS / 1000} s)`,
    );
  }
  return {
    scale,
    smoke,
    fanout,
    manyRooms,
    manyRoomsPoisson: rated(
      'manyRoomsPoisson',
      many('many rooms (Poisson arrivals)'),
      manyCrowd,
      m.roomMessagesPerSecond,
      { mode: 'poisson', seed: m.poissonSeed },
    ),
    upkeep: {
      id: 'upkeep' as const,
      title:
        `idle upkeep: ${u.rooms} rooms × ${u.members} quiet members, ${u.replicas} replicas, ` +
        `without and with heartbeats${smoke ? ' (smoke)' : ''}`,
      // settleSeconds, between the members leaving and the baseline: after 2,000 members left,
      // Taco Chat's replicas were seen busy at once and again 25 to 40 s later, idle from then on.
      ...u,
      warmupSeconds: upkeep.warmup ?? u.warmupSeconds,
      /** Each window (quiet, heartbeats) and the baseline with no member, as long (seconds). */
      windowSeconds: window,
      baselineSeconds: window,
    },
    idle: {
      id: 'idle' as const,
      title: named('idle', `${connections} connections on one replica`),
      connections,
      members: i.members,
      replicas: i.replicas,
    },
    /**
     * The many-rooms workload on Taco Chat twice, on one standalone Redis and on a Redis Cluster
     * of `masters` masters (one replica each), at the same fixed rates.
     */
    cluster: {
      id: 'cluster' as const,
      title:
        `many rooms on a ${c.masters}-master Redis Cluster beside one Redis: ${rooms} rooms × ` +
        `${manyRooms.members} members, ${m.replicas} replicas${smoke ? ' (smoke)' : ''}`,
      rooms: manyRooms,
      masters: c.masters,
      roomRates: c.roomMessagesPerSecond,
      stepSeconds: c.stepSeconds,
    },
    /** Classic `PUBLISH` against `SPUBLISH` on Redis Clusters of each size in `masters`. */
    pubsub: {
      id: 'pubsub' as const,
      title: named(
        'PUBLISH vs SPUBLISH',
        `${p.channels} channels, ${p.messagesPerSecond} messages/s for ${p.seconds} s`,
      ),
      ...p,
    },
    // Smoke: the drain ends once every message arrived, so a long bound costs nothing when all is well.
    drainMs: b.drainMs,
    bodyBytes: definitions.message.bodyBytes,
    clientSaturation: b.clientSaturation,
    p99LimitMs: definitions.slo.p99Ms,
    /** Fractions of each workload's capacity at which a step runs after the search. */
    loadFractions: b.loadFractions,
  };
}
