import { ConnectionLimiter } from '../connection-limiter.port';
import { MemoryConnectionLimiter } from '../memory/memory-connection-limiter';
import { LuaScript } from './lua-script';
import { type RedisConnections } from './redis-connections';
import { SHARED_KEYS } from './redis-keys';
import { inBatches, type ReplicaLease } from './replica-lease';

/**
 * Acquire (KEYS: the address's hash of counts per lease; ARGV: the lease, the cap). Returns 1
 * when a place was taken, 0 when the address is at the cap.
 */
const ACQUIRE = new LuaScript(`
local total = 0
for _, count in ipairs(redis.call('HVALS', KEYS[1])) do total = total + tonumber(count) end
if total >= tonumber(ARGV[2]) then return 0 end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
return 1
`);

/** Set the lease's count (ARGV: the lease, the count, 0 removing it; and a lease whose count goes). */
const SET_COUNT = new LuaScript(`
if tonumber(ARGV[2]) > 0 then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
else
  redis.call('HDEL', KEYS[1], ARGV[1])
end
if ARGV[3] then redis.call('HDEL', KEYS[1], ARGV[3]) end
return 1
`);

/**
 * The cap over every replica: each address's open sockets are counted in Redis per presence lease
 * (§8.1), and the lease indexes the addresses it counts, so when a replica dies the survivor that
 * reaps its lease takes its counts out too. Nothing is refreshed per address: keeping the counts
 * costs the lease's one renewal. This replica's own count, kept in memory, is the truth it writes;
 * while Redis cannot be reached the cap holds per replica, and nobody waits on Redis.
 */
export class RedisConnectionLimiter extends ConnectionLimiter {
  private readonly local: MemoryConnectionLimiter;
  /** Addresses whose count Redis did not take: written again after the next renewal. */
  private readonly unwritten = new Set<string>();
  /** Addresses in the lease's index: those with sockets here, and some that had. */
  private readonly indexed = new Set<string>();
  /** Acquires under way, per address. */
  private readonly pending = new Map<string, number>();

  constructor(
    private readonly redis: RedisConnections,
    private readonly lease: ReplicaLease,
    private readonly cap: number,
  ) {
    super();
    this.local = new MemoryConnectionLimiter(cap);
    lease.hold('ips', {
      held: () => this.indexed,
      reap: (lapsed, ips) => this.reap(lapsed, ips),
      replaced: (previous) => this.rewrite([...this.indexed], previous),
      renewed: () => this.renewed(),
    });
  }

  async acquire(ip: string): Promise<boolean> {
    if (this.local.countOf(ip) >= this.cap) return false;
    // Indexed under the lease before it is counted, so that no count is left unreaped.
    if (!this.indexed.has(ip)) {
      this.indexed.add(ip);
      this.lease.index('ips', 'sadd', ip);
    }
    this.pending.set(ip, (this.pending.get(ip) ?? 0) + 1);
    let taken = true;
    try {
      taken =
        (await ACQUIRE.run(
          this.redis.coalesced(),
          [SHARED_KEYS.connections(ip)],
          [this.lease.id, this.cap],
        )) === 1;
    } catch {
      // Redis is away: count here only, and write this replica's count back once it is back.
      this.unwritten.add(ip);
    } finally {
      const pending = (this.pending.get(ip) ?? 1) - 1;
      if (pending > 0) this.pending.set(ip, pending);
      else this.pending.delete(ip);
    }
    if (taken && this.local.take(ip)) return true;
    // Others from the same address took the last places here meanwhile: undo the shared count.
    if (taken) void this.write(ip);
    return false;
  }

  release(ip: string): void {
    this.local.release(ip);
    void this.write(ip);
  }

  /** Writes the address's count under the lease (and drops `previous`'s count of it). */
  private async write(ip: string, previous?: string): Promise<void> {
    const count = this.local.countOf(ip);
    try {
      await SET_COUNT.run(
        this.redis.coalesced(),
        [SHARED_KEYS.connections(ip)],
        previous ? [this.lease.id, count, previous] : [this.lease.id, count],
      );
      this.unwritten.delete(ip);
    } catch {
      // Redis is away: written again after the next renewal.
      this.unwritten.add(ip);
    }
  }

  /**
   * After a renewal: counts Redis did not take are written again, and addresses with no socket
   * here (and none being opened) leave the lease's index, in one command.
   */
  private async renewed(): Promise<void> {
    await this.rewrite([...this.unwritten]);
    const idle = [...this.indexed].filter(
      (ip) => this.local.countOf(ip) === 0 && !this.pending.has(ip) && !this.unwritten.has(ip),
    );
    for (const ip of idle) this.indexed.delete(ip);
    if (idle.length > 0) this.lease.index('ips', 'srem', ...idle);
  }

  private rewrite(ips: string[], previous?: string): Promise<void> {
    return inBatches(ips, (batch) => Promise.all(batch.map((ip) => this.write(ip, previous))));
  }

  /** Takes a lapsed lease's counts out of every address it indexed. */
  private reap(lapsed: string, ips: string[]): Promise<void> {
    return inBatches(ips, (batch) =>
      Promise.all(
        batch.map((ip) => this.redis.coalesced().hdel(SHARED_KEYS.connections(ip), lapsed)),
      ),
    );
  }
}
