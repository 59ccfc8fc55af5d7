/**
 * The Redis layout (§8.1): every key and channel of a room, and the keys the replicas share, built
 * in one place for the api's Redis driver and for tools that read a deployment's Redis.
 */

/**
 * Every Redis key and channel of a room. The room sits in a hash tag, so a
 * Redis Cluster keeps all of a room's keys in one slot.
 */
export function roomKeys(room: string) {
  return {
    log: `chat:{${room}}:log`,
    seq: `chat:{${room}}:seq`,
    epoch: `chat:{${room}}:epoch`,
    /** Where the last clear left the room: \`<epoch> <seq>\` (§6.6). */
    cleared: `chat:{${room}}:cleared`,
    presence: `chat:{${room}}:presence`,
    /** The room's settings record (§6.9). */
    settings: `chat:{${room}}:room`,
    /** Removed holders and barred names, each with when it lapses (§6.11). */
    removed: `chat:{${room}}:removed`,
    channel: `chat:{${room}}`,
  } as const;
}

/**
 * The key of one storing call (an append, a clear) a replica sent for `room`, holding its answer:
 * the call, sent again after its connection broke unanswered, is answered instead of run twice.
 * It lives for a minute, so it is not among the room's keys above.
 */
export function roomCallKey(room: string, call: string): string {
  return `chat:{${room}}:call:${call}`;
}

/** Keys shared by every replica rather than kept per room. */
export const SHARED_KEYS = {
  /** The token secret the replicas agreed on when the operator set none (the api's token secret). */
  jwtSecret: 'taco:jwt-secret',
  /** A single-use socket ticket and the room and name it opens (§4.2). */
  ticket: (ticket: string) => `taco:ticket:${ticket}`,
  /** Per-IP call budgets (rate-limiter-flexible adds the IP after the prefix). */
  rateLimitPrefix: (budget: string) => `taco:limit:${budget}`,
  /** Rooms whose messages disappear, scored by when they are next due for a sweep (§6.13). */
  disappearing: 'taco:disappearing',
  /** Open sockets of one client IP, counted per presence lease (§7.3, §8.1). */
  connections: (ip: string) => `taco:sockets:{${ip}}`,
  /** The replicas' presence leases, each scored by when it lapses (§8.1). */
  presenceLeases: 'taco:{presence}:leases',
  /**
   * What a presence lease holds (§8.1): `rooms`, the rooms it has members in; `ips`, the
   * addresses it counts sockets of.
   */
  leaseIndex: (index: 'rooms' | 'ips', lease: string) => `taco:{presence}:${index}:${lease}`,
  /** Held by the replica that reaps a lapsed lease (§8.1). */
  leaseReaping: (lease: string) => `taco:{presence}:reaping:${lease}`,
} as const;
