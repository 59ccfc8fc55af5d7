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
  PRESENCE_JOIN_SCRIPT,
  PRESENCE_KEEP_SCRIPT,
  PRESENCE_LEAVE_SCRIPT,
  PRESENCE_NAMES_SCRIPT,
  PRESENCE_REAP_SCRIPT,
} from './presence-scripts';
import { type RedisConnections } from './redis-connections';
import { roomKeys } from './redis-keys';
import { inBatches, type ReplicaLease } from './replica-lease';

const join = new LuaScript(PRESENCE_JOIN_SCRIPT);
const leave = new LuaScript(PRESENCE_LEAVE_SCRIPT);
const keep = new LuaScript(PRESENCE_KEEP_SCRIPT);
const reap = new LuaScript(PRESENCE_REAP_SCRIPT);
const names = new LuaScript(PRESENCE_NAMES_SCRIPT);

/** A connection's member of the room's presence set (see `PRESENCE_PRELUDE`). */
const member = ({ name, holder, key, skeleton }: NameClaim, connectionId: string) =>
  `${name}\n${connectionId}\n${holder}\n${key}\n${skeleton}`;

/** The join script's answers when the name is someone else's, and when the holder was removed. */
const TAKEN = -1;
const REMOVED = -2;

/**
 * Presence shared by every replica: a sorted set per room of members naming a connection and the
 * name it holds, scored by the presence lease of the replica holding the connection. A replica
 * renews its one lease (`tend`), whatever the number of its members; a replica that dies stops
 * renewing it, and the first replica to find it lapsed removes its members from each room it
 * indexed, and reports the names gone. Who holds a name is checked inside the join script, so it
 * holds across replicas.
 */
export class RedisPresenceStore extends PresenceStore {
  /** This replica's members, per room: the rooms its lease is indexed under. */
  private readonly local = new Map<string, Set<string>>();
  /** Leaves Redis did not take (it was away), by room and member. */
  private readonly unfinishedLeaves = new Map<string, () => Promise<unknown>>();
  /** Names no one is left of, found by reaping since the last renewal reported them. */
  private gone: PresenceTended['gone'] = [];

  constructor(
    private readonly redis: RedisConnections,
    private readonly lease: ReplicaLease,
  ) {
    super();
    lease.hold('rooms', {
      held: () => this.local.keys(),
      reap: (lapsed, rooms) => this.reap(lapsed, rooms),
      renewed: () => this.finishLeaves(),
    });
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
    this.lease.register();
    // Tracked first, and kept when the script fails: it may have added the member all the same.
    this.track(room, entry);
    const [first, ...roster] = (await join.run(
      this.redis.coalesced(),
      [keys.presence, keys.channel, keys.removed],
      [
        claim.name,
        entry,
        this.lease.id,
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
      this.lease.index('rooms', 'sadd', room);
    }
    entries.add(entry);
  }

  /** Forgets a local member; a room's last is taken out of the lease's index. */
  private untrack(room: string, entry: string): void {
    const entries = this.local.get(room);
    if (!entries?.delete(entry) || entries.size > 0) return;
    this.local.delete(room);
    this.lease.index('rooms', 'srem', room);
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
      [this.lease.id, ...args],
    )) as [string[], string[], string[]];
    return { back, taken, removed };
  }

  async tend(): Promise<PresenceTended> {
    const lapsed = await this.lease.tend();
    const gone = this.gone;
    this.gone = [];
    return { lapsed, gone };
  }

  /** Leaves Redis did not take, tried again; one that fails again never holds up the reaping. */
  private async finishLeaves(): Promise<void> {
    await Promise.all(
      [...this.unfinishedLeaves].map(([key, run]) =>
        run().then(
          () => this.unfinishedLeaves.delete(key),
          () => undefined,
        ),
      ),
    );
  }

  /** Removes a lapsed lease's members from the rooms it indexed; notes the names gone. */
  private reap(lapsed: string, rooms: string[]): Promise<void> {
    return inBatches(rooms, async (batch) => {
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
        if (names.length > 0) this.gone.push({ room, names });
      });
    });
  }
}
