import { randomInt } from 'node:crypto';
import {
  type PresenceEntry,
  type PresenceJoin,
  type PresenceKept,
  type PresenceLeave,
  PresenceStore,
  type PresenceTended,
} from '../presence.port';
import { type RoomEvent } from '../chat-bus.port';
import { clashesWithAny, type NameClaim, nameForms } from '../name-claim';
import { encodeEnvelope } from './envelope';
import { LuaScript } from './lua-script';
import {
  LEASE_REAPED_SCRIPT,
  LEASE_RENEW_SCRIPT,
  PRESENCE_JOIN_SCRIPT,
  PRESENCE_KEEP_SCRIPT,
  PRESENCE_LEAVE_SCRIPT,
  PRESENCE_NAMES_SCRIPT,
  PRESENCE_REAP_SCRIPT,
} from './presence-scripts';
import { type RedisConnections } from './redis-connections';
import { roomKeys, SHARED_KEYS } from './redis-keys';

const join = new LuaScript(PRESENCE_JOIN_SCRIPT);
const leave = new LuaScript(PRESENCE_LEAVE_SCRIPT);
const keep = new LuaScript(PRESENCE_KEEP_SCRIPT);
const reap = new LuaScript(PRESENCE_REAP_SCRIPT);
const names = new LuaScript(PRESENCE_NAMES_SCRIPT);
const renew = new LuaScript(LEASE_RENEW_SCRIPT);
const reaped = new LuaScript(LEASE_REAPED_SCRIPT);

/** A connection's member of the room's presence set (see `PRESENCE_PRELUDE`). */
const member = ({ name, holder, key, skeleton }: NameClaim, connectionId: string) =>
  `${name}\n${connectionId}\n${holder}\n${key}\n${skeleton}`;

/** The join script's answers when the name is someone else's, and when the holder was removed. */
const TAKEN = -1;
const REMOVED = -2;

/** Lapsed leases taken from one renewal at most; the rest wait for the next. */
const LAPSED_PER_RENEWAL = 8;
/** Rooms reaped, or indexed, at once. */
const ROOMS_PER_BATCH = 64;

/**
 * A new lease: an integer from 2^50 to 2^53 (exact as a double, and far beyond any time in ms, so
 * members scored by it are live by the presence scripts' clock test), as Redis writes it.
 */
const newLease = () => String(2 ** 50 + randomInt(2 ** 40) * 2 ** 12 + randomInt(2 ** 12));

/**
 * Presence shared by every replica: a sorted set per room of members naming a connection and the
 * name it holds, scored by the presence lease of the replica holding the connection. A replica
 * renews its one lease (`tend`), whatever the number of its members; a replica that dies stops
 * renewing it, and the first replica to find it lapsed removes its members from each room it
 * indexed, and reports the names gone. Who holds a name is checked inside the join script, so it
 * holds across replicas.
 */
export class RedisPresenceStore extends PresenceStore {
  private lease = newLease();
  /** Whether `lease` is in the leases set yet (taken at the first renewal that reaches Redis). */
  private leased = false;
  /** This replica's members, per room: the rooms its lease is indexed under. */
  private readonly local = new Map<string, Set<string>>();
  /** Set when an index write failed: the next renewal writes every local room again. */
  private indexStale = false;
  /** Set when the lease was replaced, until a renewal reports it (one that fails does not). */
  private lapsed = false;
  /** Leaves Redis did not take (it was away), by room and member. */
  private readonly unfinishedLeaves = new Map<string, () => Promise<unknown>>();

  constructor(
    private readonly redis: RedisConnections,
    private readonly leaseMs: number,
  ) {
    super();
  }

  async join(
    room: string,
    claim: NameClaim,
    connectionId: string,
    announce?: RoomEvent,
    formerHolder = '',
  ): Promise<PresenceJoin> {
    const keys = roomKeys(room);
    const entry = member(claim, connectionId);
    // A lease must be known before its first member is, or no one could reap that member.
    if (!this.leased) this.register();
    // Tracked first, and kept when the script fails: it may have added the member all the same.
    this.track(room, entry);
    const [first, ...roster] = (await join.run(
      this.redis.coalesced(),
      [keys.presence, keys.channel, keys.removed],
      [
        claim.name,
        entry,
        this.lease,
        claim.holder,
        claim.key,
        claim.skeleton,
        formerHolder,
        ...this.announcing(announce),
      ],
    )) as [number, ...string[]];
    if (first === TAKEN || first === REMOVED) {
      this.untrack(room, entry);
      return first === REMOVED ? { taken: true, removed: true } : { taken: true };
    }
    return { taken: false, first: first === 1, roster };
  }

  async leave(
    room: string,
    claim: NameClaim,
    connectionId: string,
    announce?: RoomEvent,
  ): Promise<PresenceLeave> {
    const keys = roomKeys(room);
    const entry = member(claim, connectionId);
    const run = async () => {
      const last = await leave.run(
        this.redis.coalesced(),
        [keys.presence, keys.channel],
        [claim.name, entry, ...this.announcing(announce)],
      );
      this.untrack(room, entry);
      return last;
    };
    try {
      return { last: (await run()) === 1 };
    } catch (error) {
      // Nothing else would take the member out while the lease lives: tried again at each renewal.
      this.unfinishedLeaves.set(`${room}\n${entry}`, run);
      throw error;
    }
  }

  /** Notes a local member; a room's first is indexed under the lease (in the same write). */
  private track(room: string, entry: string): void {
    let entries = this.local.get(room);
    if (!entries) {
      this.local.set(room, (entries = new Set()));
      this.index('sadd', room);
    }
    entries.add(entry);
  }

  /** Forgets a local member; a room's last is taken out of the lease's index. */
  private untrack(room: string, entry: string): void {
    const entries = this.local.get(room);
    if (!entries?.delete(entry) || entries.size > 0) return;
    this.local.delete(room);
    this.index('srem', room);
  }

  private index(command: 'sadd' | 'srem', room: string): void {
    const rooms = SHARED_KEYS.presenceLeaseRooms(this.lease);
    this.redis
      .coalesced()
      [command](rooms, room)
      .catch(() => (this.indexStale = true));
  }

  /** The scripts' optional last arguments: the event as published, and the publish command. */
  private announcing(announce: RoomEvent | undefined): string[] {
    return announce ? [encodeEnvelope(announce), this.redis.publishCommand] : [];
  }

  async isTaken(room: string, name: string): Promise<boolean> {
    return clashesWithAny(await this.names(room), nameForms(name));
  }

  async names(room: string): Promise<string[]> {
    return (await names.run(this.redis.coalesced(), [roomKeys(room).presence], [])) as string[];
  }

  async keep(room: string, entries: PresenceEntry[]): Promise<PresenceKept> {
    const args = entries.flatMap(({ claim, connectionId }) => [
      claim.name,
      member(claim, connectionId),
      connectionId,
    ]);
    const keys = roomKeys(room);
    const [back, taken, removed] = (await keep.run(
      this.redis.coalesced(),
      [keys.presence, keys.removed],
      [this.lease, ...args],
    )) as [string[], string[], string[]];
    return { back, taken, removed };
  }

  async tend(): Promise<PresenceTended> {
    const held = this.lease;
    let answer = await this.renew();
    if (answer[0] === 0) {
      // Renewed too late: the lease may be reaped already. Every local member goes under a new one.
      this.lapsed = true;
      this.lease = newLease();
      this.leased = false;
      this.indexStale = true;
      answer = await this.renew();
    }
    this.leased = true;
    if (this.indexStale) await this.reindex();
    // One that fails again waits for the next renewal; it never holds up the reaping below.
    await Promise.all(
      [...this.unfinishedLeaves].map(([key, run]) =>
        run().then(
          () => this.unfinishedLeaves.delete(key),
          () => undefined,
        ),
      ),
    );
    const gone: PresenceTended['gone'] = [];
    // Its own lapsed lease is reaped from the next renewal on, once `keep` moved its members.
    for (const other of answer.slice(1) as string[]) {
      if (other !== this.lease && other !== held) gone.push(...(await this.reap(other)));
    }
    const lapsed = this.lapsed;
    this.lapsed = false;
    return { lapsed, gone };
  }

  /** Takes the lease in the same write as the join that needs it (in front of it). */
  private register(): void {
    this.renew().then(
      () => (this.leased = true),
      () => undefined,
    );
  }

  private async renew(): Promise<[number, ...string[]]> {
    return (await renew.run(
      this.redis.coalesced(),
      [SHARED_KEYS.presenceLeases],
      [this.lease, this.leaseMs, this.leased ? '0' : '1', LAPSED_PER_RENEWAL],
    )) as [number, ...string[]];
  }

  /** Indexes every local room under the lease again. */
  private async reindex(): Promise<void> {
    this.indexStale = false;
    const rooms = [...this.local.keys()];
    const key = SHARED_KEYS.presenceLeaseRooms(this.lease);
    try {
      for (let start = 0; start < rooms.length; start += ROOMS_PER_BATCH) {
        await this.redis.coalesced().sadd(key, ...rooms.slice(start, start + ROOMS_PER_BATCH));
      }
    } catch (error) {
      this.indexStale = true;
      throw error;
    }
  }

  /**
   * Removes a lapsed lease's members from every room it indexed, unless another replica is at it,
   * then the lease and its index. Returns the names no one is left of, per room.
   */
  private async reap(lapsed: string): Promise<PresenceTended['gone']> {
    const lock = SHARED_KEYS.presenceReaping(lapsed);
    const client = this.redis.coalesced();
    if ((await client.set(lock, this.lease, 'PX', this.leaseMs, 'NX')) === null) return [];
    const roomsKey = SHARED_KEYS.presenceLeaseRooms(lapsed);
    const rooms = await client.smembers(roomsKey);
    const gone: PresenceTended['gone'] = [];
    for (let start = 0; start < rooms.length; start += ROOMS_PER_BATCH) {
      const batch = rooms.slice(start, start + ROOMS_PER_BATCH);
      const answers = await Promise.all(
        batch.map(
          (room) =>
            reap.run(this.redis.coalesced(), [roomKeys(room).presence], [lapsed]) as Promise<
              string[]
            >,
        ),
      );
      batch.forEach((room, i) => {
        const names = answers[i] ?? [];
        if (names.length > 0) gone.push({ room, names });
      });
    }
    await reaped.run(
      this.redis.coalesced(),
      [SHARED_KEYS.presenceLeases, roomsKey, lock],
      [lapsed],
    );
    return gone;
  }
}
