/**
 * Every Redis key and channel of a room, built in one place. The room sits in a hash tag, so a
 * Redis Cluster keeps all of a room's keys in one slot.
 */
export function roomKeys(room: string) {
  return {
    log: `chat:{${room}}:log`,
    seq: `chat:{${room}}:seq`,
    epoch: `chat:{${room}}:epoch`,
    /** Where the last clear left the room: \`<epoch> <seq>\` (see `CLEAR_SCRIPT`). */
    cleared: `chat:{${room}}:cleared`,
    presence: `chat:{${room}}:presence`,
    channel: `chat:{${room}}`,
  } as const;
}

const CHANNEL_START = 'chat:{';
const CHANNEL_END = '}';
const CHANNEL_START_BYTES = Buffer.from(CHANNEL_START);
const CHANNEL_END_BYTE = CHANNEL_END.charCodeAt(0);

/**
 * The room of a channel name (as text, or as the bytes the subscriber hands over, read without a
 * copy of the whole name), or `null` when it is not a room channel.
 */
export function roomOfChannel(channel: string | Buffer): string | null {
  const start = CHANNEL_START.length;
  const end = channel.length - 1;
  if (end <= start) return null;
  if (typeof channel === 'string') {
    return channel.startsWith(CHANNEL_START) && channel.endsWith(CHANNEL_END)
      ? channel.slice(start, end)
      : null;
  }
  if (channel[end] !== CHANNEL_END_BYTE || channel.compare(CHANNEL_START_BYTES, 0, start, 0, start))
    return null;
  return channel.toString('utf8', start, end);
}

/** Keys shared by every replica rather than kept per room. */
export const SHARED_KEYS = {
  /** The token secret the replicas agreed on when the operator set none (see `TokenSecret`). */
  jwtSecret: 'taco:jwt-secret',
  /** A single-use socket ticket and the room and name it opens (see `TicketStore`). */
  ticket: (ticket: string) => `taco:ticket:${ticket}`,
  /** Per-IP call budgets (rate-limiter-flexible adds the IP after the prefix). */
  rateLimitPrefix: (budget: string) => `taco:limit:${budget}`,
  /** Open sockets of one client IP, counted per replica (see `RedisConnectionLimiter`). */
  connections: (ip: string) => `taco:connections:{${ip}}`,
} as const;
