import { ConnectionLimiter } from '../connection-limiter.port';
import { MemoryConnectionLimiter } from '../memory/memory-connection-limiter';
import { LuaScript } from './lua-script';
import { type RedisConnections } from './redis-connections';
import { SHARED_KEYS } from './redis-keys';

/** How long a replica's count stands without a refresh: a dead replica's stops counting then. */
export const CONNECTION_COUNT_TTL_MS = 30_000;
const REFRESH_INTERVAL_MS = 10_000;

/**
 * Shared by the connection scripts (KEYS: the address's hash): Redis's clock, and the hash read
 * as counts per replica, dropping replicas whose count was not refreshed in time. The hash holds
 * `<replica>` → open connections and `<replica>:until` → when that count lapses (ms).
 */
const PRELUDE = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local function live_total()
  local fields = redis.call('HGETALL', KEYS[1])
  local counts, untils = {}, {}
  for i = 1, #fields, 2 do
    local replica = string.match(fields[i], '^(.*):until$')
    if replica then untils[replica] = tonumber(fields[i + 1]) else counts[fields[i]] = tonumber(fields[i + 1]) end
  end
  local total = 0
  for replica, count in pairs(counts) do
    local until_ms = untils[replica]
    if until_ms and until_ms > now then
      total = total + count
    else
      redis.call('HDEL', KEYS[1], replica, replica .. ':until')
    end
  end
  return total
end
`;

/** Acquire. ARGV: replica, cap, ttl ms. Returns 1 when a place was taken, 0 when at the cap. */
const ACQUIRE = new LuaScript(`${PRELUDE}
if live_total() >= tonumber(ARGV[2]) then return 0 end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('HSET', KEYS[1], ARGV[1] .. ':until', now + tonumber(ARGV[3]))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`);

/** Set this replica's count. ARGV: replica, count, ttl ms (count 0 removes it). */
const SET_COUNT = new LuaScript(`
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
if tonumber(ARGV[2]) <= 0 then
  redis.call('HDEL', KEYS[1], ARGV[1], ARGV[1] .. ':until')
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2], ARGV[1] .. ':until', now + tonumber(ARGV[3]))
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1
`);

/**
 * The cap over every replica: each address's open connections are counted in Redis per replica,
 * each replica's count lapsing unless it refreshes it (every 10 s; a dead replica's count stops
 * counting within 30 s). This replica's own count, kept in memory, is the truth it writes back.
 * While Redis cannot be reached the cap holds per replica, and nobody waits on Redis.
 */
export class RedisConnectionLimiter extends ConnectionLimiter {
  private readonly local: MemoryConnectionLimiter;
  private readonly refresher = setInterval(() => void this.refresh(), REFRESH_INTERVAL_MS).unref();

  constructor(
    private readonly redis: RedisConnections,
    private readonly replicaId: string,
    private readonly cap: number,
    private readonly ttlMs = CONNECTION_COUNT_TTL_MS,
  ) {
    super();
    this.local = new MemoryConnectionLimiter(cap);
  }

  async acquire(ip: string): Promise<boolean> {
    if (this.local.countOf(ip) >= this.cap) return false;
    try {
      const taken = await ACQUIRE.run(
        this.redis.coalesced(),
        [SHARED_KEYS.connections(ip)],
        [this.replicaId, this.cap, this.ttlMs],
      );
      if (taken !== 1) return false;
    } catch {
      // Redis is away: count here only. The next refresh writes this replica's true count back.
    }
    if (this.local.take(ip)) return true;
    // Others from the same address took the last places here meanwhile: undo the shared count.
    void this.write(ip, this.local.countOf(ip));
    return false;
  }

  release(ip: string): void {
    this.local.release(ip);
    void this.write(ip, this.local.countOf(ip));
  }

  /** Writes every address's count of this replica again, renewing its lapse time. */
  async refresh(): Promise<void> {
    await Promise.all([...this.local.entries()].map(([ip, count]) => this.write(ip, count)));
  }

  private write(ip: string, count: number): Promise<void> {
    return SET_COUNT.run(
      this.redis.coalesced(),
      [SHARED_KEYS.connections(ip)],
      [this.replicaId, count, this.ttlMs],
    ).then(
      () => undefined,
      // Redis is away: the next refresh writes the count again.
      () => undefined,
    );
  }

  override close(): void {
    clearInterval(this.refresher);
  }
}
