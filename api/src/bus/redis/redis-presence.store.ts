import { isSameUserName } from '@taco/protocol';
import {
  type PresenceEntry,
  type PresenceJoin,
  type PresenceKept,
  type PresenceLeave,
  PresenceStore,
  RENAME_FOLLOW_MS,
  renameTokenDigest,
} from '../presence.port';
import { type RoomEvent } from '../chat-bus.port';
import { encodeEnvelope } from './envelope';
import { LuaScript } from './lua-script';
import { type RedisConnections } from './redis-connections';
import { renameKey, roomKeys } from './redis-keys';
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

const member = (name: string, connectionId: string) => `${name}\n${connectionId}`;

/**
 * Presence shared by every replica: a sorted set per room of "name\nconnection" members scored
 * by when they expire. Each replica refreshes its own; a replica that dies stops refreshing, and
 * whichever replica keeps the room next reports its participants gone.
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
    name: string,
    connectionId: string,
    announce?: RoomEvent,
  ): Promise<PresenceJoin> {
    const keys = roomKeys(room);
    const [first, ...roster] = (await join.run(
      this.redis.coalesced(),
      [keys.presence, keys.channel],
      [name, member(name, connectionId), this.expiryMs, ...this.announcing(announce)],
    )) as [number, ...string[]];
    return { first: first === 1, roster };
  }

  async leave(
    room: string,
    name: string,
    connectionId: string,
    announce?: RoomEvent,
  ): Promise<PresenceLeave> {
    const keys = roomKeys(room);
    const last = await leave.run(
      this.redis.coalesced(),
      [keys.presence, keys.channel],
      [name, member(name, connectionId), ...this.announcing(announce)],
    );
    return { last: last === 1 };
  }

  /** The scripts' optional last arguments: the event as published, and the publish command. */
  private announcing(announce: RoomEvent | undefined): string[] {
    return announce ? [encodeEnvelope(announce), this.redis.publishCommand] : [];
  }

  async isPresent(room: string, name: string): Promise<boolean> {
    return (await this.names(room)).some((other) => isSameUserName(other, name));
  }

  async names(room: string): Promise<string[]> {
    return (await names.run(this.redis.coalesced(), [roomKeys(room).presence], [])) as string[];
  }

  async noteRename(room: string, token: string): Promise<void> {
    const key = renameKey(room, renameTokenDigest(token));
    await this.redis.coalesced().set(key, '1', 'PX', RENAME_FOLLOW_MS);
  }

  async mayFollowRename(room: string, token: string): Promise<boolean> {
    const key = renameKey(room, renameTokenDigest(token));
    return (await this.redis.coalesced().exists(key)) === 1;
  }

  async keep(room: string, entries: PresenceEntry[]): Promise<PresenceKept> {
    const args = entries.flatMap((entry) => [entry.name, member(entry.name, entry.connectionId)]);
    const [back, gone] = (await keep.run(
      this.redis.coalesced(),
      [roomKeys(room).presence],
      [this.expiryMs, ...args],
    )) as [string[], string[]];
    return { back, gone };
  }
}
