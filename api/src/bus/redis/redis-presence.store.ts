import {
  type PresenceEntry,
  type PresenceJoin,
  type PresenceKept,
  type PresenceLeave,
  PresenceStore,
} from '../presence.port';
import { type RoomEvent } from '../chat-bus.port';
import { clashesWithAny, type NameClaim, nameForms } from '../name-claim';
import { encodeEnvelope } from './envelope';
import { LuaScript } from './lua-script';
import { type RedisConnections } from './redis-connections';
import { roomKeys } from './redis-keys';
import {
  PRESENCE_JOIN_SCRIPT,
  PRESENCE_KEEP_SCRIPT,
  PRESENCE_LEAVE_SCRIPT,
  PRESENCE_NAMES_SCRIPT,
} from './scripts';

const join = new LuaScript(PRESENCE_JOIN_SCRIPT);
const leave = new LuaScript(PRESENCE_LEAVE_SCRIPT);
const keep = new LuaScript(PRESENCE_KEEP_SCRIPT);
const names = new LuaScript(PRESENCE_NAMES_SCRIPT);

/** A connection's member of the room's presence set (see `PRESENCE_PRELUDE`). */
const member = ({ name, holder, key, skeleton }: NameClaim, connectionId: string) =>
  `${name}\n${connectionId}\n${holder}\n${key}\n${skeleton}`;

/** The join script's answers when the name is someone else's, and when the holder was removed. */
const TAKEN = -1;
const REMOVED = -2;

/**
 * Presence shared by every replica: a sorted set per room of members naming a connection and the
 * name it holds, scored by when they expire. Each replica refreshes its own; a replica that dies
 * stops refreshing, and whichever replica keeps the room next reports its participants gone.
 * Who holds a name is checked inside the join script, so it holds across replicas.
 */
export class RedisPresenceStore extends PresenceStore {
  constructor(
    private readonly redis: RedisConnections,
    private readonly expiryMs: number,
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
    const [first, ...roster] = (await join.run(
      this.redis.coalesced(),
      [keys.presence, keys.channel, keys.removed],
      [
        claim.name,
        member(claim, connectionId),
        this.expiryMs,
        claim.holder,
        claim.key,
        claim.skeleton,
        formerHolder,
        ...this.announcing(announce),
      ],
    )) as [number, ...string[]];
    if (first === REMOVED) return { taken: true, removed: true };
    return first === TAKEN ? { taken: true } : { taken: false, first: first === 1, roster };
  }

  async leave(
    room: string,
    claim: NameClaim,
    connectionId: string,
    announce?: RoomEvent,
  ): Promise<PresenceLeave> {
    const keys = roomKeys(room);
    const last = await leave.run(
      this.redis.coalesced(),
      [keys.presence, keys.channel],
      [claim.name, member(claim, connectionId), ...this.announcing(announce)],
    );
    return { last: last === 1 };
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
    const [back, gone, taken, removed] = (await keep.run(
      this.redis.coalesced(),
      [keys.presence, keys.removed],
      [this.expiryMs, ...args],
    )) as [string[], string[], string[], string[]];
    return { back, gone, taken, removed };
  }
}
