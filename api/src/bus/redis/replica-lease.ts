import { randomInt } from 'node:crypto';
import { LuaScript } from './lua-script';
import { type RedisConnections } from './redis-connections';
import { SHARED_KEYS } from './redis-keys';

/**
 * A replica's lease (KEYS: the leases; ARGV: the lease, its length in ms, '1' to take it new, and
 * how many lapsed leases to return at most). A lease that lapsed is never renewed (what it held
 * may be reaped already): the answer is {0}, and the replica takes a new one. Otherwise the lease
 * runs for its length from now, and the answer is {1, lapsed leases of other replicas...}.
 */
export const LEASE_RENEW_SCRIPT = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local until_ms = redis.call('ZSCORE', KEYS[1], ARGV[1])
if ARGV[3] ~= '1' and (not until_ms or tonumber(until_ms) <= now) then return {0} end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))
table.insert(lapsed, 1, 1)
return lapsed
`;

/** A lapsed lease reaped (KEYS: the leases, then its indexes and its reaping lock; ARGV: it). */
export const LEASE_REAPED_SCRIPT = `
redis.call('ZREM', KEYS[1], ARGV[1])
for i = 2, #KEYS do redis.call('DEL', KEYS[i]) end
return 1
`;

const renewScript = new LuaScript(LEASE_RENEW_SCRIPT);
const reapedScript = new LuaScript(LEASE_REAPED_SCRIPT);

/** Lapsed leases taken from one renewal at most; the rest wait for the next. */
const LAPSED_PER_RENEWAL = 8;
/** Index entries written, or reaped, at once. */
const LEASE_BATCH = 64;

/** Runs `each` over `items` a batch of `LEASE_BATCH` at a time, one batch after the other. */
export async function inBatches<T>(
  items: readonly T[],
  each: (batch: T[]) => Promise<unknown>,
): Promise<void> {
  for (let start = 0; start < items.length; start += LEASE_BATCH) {
    await each(items.slice(start, start + LEASE_BATCH));
  }
}

/**
 * A new lease: an integer from 2^50 to 2^53 (exact as a double, and far beyond any time in ms, so
 * presence members scored by it are live by the presence scripts' clock test), as Redis writes it.
 */
const newLease = () => String(2 ** 50 + randomInt(2 ** 40) * 2 ** 12 + randomInt(2 ** 12));

/** What a lease indexes: the rooms it has presence members in, the addresses it counts sockets of. */
export type LeaseIndexName = 'rooms' | 'ips';

/** One use of the lease by a store (presence, the connection counts). */
export interface LeaseHolder {
  /** What this replica holds now: indexed again under a new lease, or after a failed write. */
  held(): Iterable<string>;
  /** Takes a lapsed lease's entries out of what its index names (before the index goes). */
  reap(lapsed: string, indexed: string[]): Promise<void>;
  /** The lease was replaced (it lapsed): the holder writes what it holds under the new one. */
  replaced?(previous: string): Promise<void>;
  /** After each renewal, before any reaping: writes Redis did not take are tried again. */
  renewed?(): Promise<void>;
}

/**
 * The replica's one lease (§8.1, §8.3), shared by everything it holds in Redis on behalf of its
 * sockets: presence members and per-address socket counts are written under it, and each lease
 * indexes where its entries are, so that when a replica dies the first survivor to find its lease
 * lapsed removes them all. Renewing costs one script, however much the replica holds.
 */
export class ReplicaLease {
  /** The lease entries are written under now. */
  id = newLease();
  /** Whether `id` is in the leases set yet (taken in front of the first write that needs it). */
  private leased = false;
  private registering = false;
  /** Leases this replica's entries were under until they lapsed, to be moved off them. */
  private readonly replaced: string[] = [];
  /** Set when the lease was replaced, until a renewal reports it (one that fails does not). */
  private lapsed = false;
  private readonly holders = new Map<LeaseIndexName, LeaseHolder>();
  /** Indexes a write to failed: the next renewal writes them whole again. */
  private readonly stale = new Set<LeaseIndexName>();

  constructor(
    private readonly redis: RedisConnections,
    readonly leaseMs: number,
  ) {}

  hold(name: LeaseIndexName, holder: LeaseHolder): void {
    this.holders.set(name, holder);
  }

  /**
   * Adds an entry to (or takes it out of) the lease's index. A lease must be known before its
   * first entry is, or no one could reap it: its first index write takes it, in front.
   */
  index(name: LeaseIndexName, command: 'sadd' | 'srem', ...entries: string[]): void {
    this.register();
    this.redis
      .coalesced()
      [command](SHARED_KEYS.leaseIndex(name, this.id), ...entries)
      .catch(() => this.stale.add(name));
  }

  /** Takes the lease, unless it is taken, in the same write as the first that needs it. */
  register(): void {
    if (this.leased || this.registering) return;
    this.registering = true;
    this.renew()
      .then(
        () => (this.leased = true),
        () => undefined,
      )
      .finally(() => (this.registering = false));
  }

  private async renew(): Promise<[number, ...string[]]> {
    return (await renewScript.run(
      this.redis.coalesced(),
      [SHARED_KEYS.presenceLeases],
      [this.id, this.leaseMs, this.leased ? '0' : '1', LAPSED_PER_RENEWAL],
    )) as [number, ...string[]];
  }

  /**
   * Renews the lease, or takes a new one when it lapsed (each holder then writes what it holds
   * under it), and reaps other replicas' lapsed leases. Returns whether this replica's had lapsed.
   */
  async tend(): Promise<boolean> {
    const held = this.id;
    let answer = await this.renew();
    if (answer[0] === 0) {
      // Renewed too late: what it held may be reaped already. Everything goes under a new lease.
      this.lapsed = true;
      this.replaced.push(held);
      this.id = newLease();
      this.leased = false;
      for (const name of this.holders.keys()) this.stale.add(name);
      answer = await this.renew();
    }
    this.leased = true;
    const holders = [...this.holders.values()];
    for (const previous of this.replaced.splice(0)) {
      await Promise.all(holders.map((holder) => holder.replaced?.(previous) ?? Promise.resolve()));
    }
    for (const name of [...this.stale]) await this.reindex(name);
    await Promise.all(holders.map((holder) => holder.renewed?.() ?? Promise.resolve()));
    // Its own lapsed lease is reaped from the next renewal on, once the holders moved its entries.
    for (const other of answer.slice(1) as string[]) {
      if (other !== this.id && other !== held) await this.reap(other);
    }
    const lapsed = this.lapsed;
    this.lapsed = false;
    return lapsed;
  }

  /** Indexes everything a holder holds under the lease again. */
  private async reindex(name: LeaseIndexName): Promise<void> {
    this.stale.delete(name);
    const entries = [...(this.holders.get(name)?.held() ?? [])];
    const key = SHARED_KEYS.leaseIndex(name, this.id);
    try {
      await inBatches(entries, (batch) => this.redis.coalesced().sadd(key, ...batch));
    } catch (error) {
      this.stale.add(name);
      throw error;
    }
  }

  /**
   * Has each holder remove a lapsed lease's entries, unless another replica is at it, then drops
   * the lease and its indexes.
   */
  private async reap(lapsed: string): Promise<void> {
    const lock = SHARED_KEYS.leaseReaping(lapsed);
    const client = this.redis.coalesced();
    if ((await client.set(lock, this.id, 'PX', this.leaseMs, 'NX')) === null) return;
    const indexes = [...this.holders.keys()].map((name) => SHARED_KEYS.leaseIndex(name, lapsed));
    const indexed = await Promise.all(indexes.map((key) => client.smembers(key)));
    for (const [i, holder] of [...this.holders.values()].entries()) {
      await holder.reap(lapsed, indexed[i] ?? []);
    }
    await reapedScript.run(
      this.redis.coalesced(),
      [SHARED_KEYS.presenceLeases, ...indexes, lock],
      [lapsed],
    );
  }
}
