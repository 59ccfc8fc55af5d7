import { clashesWithAny, type NameClaim, type NameForms } from '../name-claim';
import {
  type ControlOutcome,
  type CreatedRoom,
  type CredentialsCheck,
  type NewRoom,
  type RoomControl,
  type RoomRecord,
  RoomSettingsStore,
} from '../room-settings.port';
import { LuaScript } from './lua-script';
import { type RedisConnections } from './redis-connections';
import { roomKeys } from './redis-keys';
import {
  ROOM_CONTROL_SCRIPT,
  ROOM_CREATE_SCRIPT,
  ROOM_CREDENTIALS_SCRIPT,
  ROOM_GET_SCRIPT,
  ROOM_REMOVED_SCRIPT,
  ROOM_RENAMED_SCRIPT,
} from './room-scripts';

const create = new LuaScript(ROOM_CREATE_SCRIPT);
const get = new LuaScript(ROOM_GET_SCRIPT);
const credentials = new LuaScript(ROOM_CREDENTIALS_SCRIPT);
const removed = new LuaScript(ROOM_REMOVED_SCRIPT);
const control = new LuaScript(ROOM_CONTROL_SCRIPT);
const renamed = new LuaScript(ROOM_RENAMED_SCRIPT);

/** A record from its hash's fields (`HGETALL`'s flat list), or null for an empty hash. */
export function recordOf(fields: readonly string[]): RoomRecord | null {
  if (fields.length === 0) return null;
  const hash = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) hash.set(fields[i] ?? '', fields[i + 1] ?? '');
  return {
    encrypted: hash.get('encrypted') === '1',
    keyCheck: hash.get('key_check') || null,
    locked: hash.get('locked') === '1',
    disappearAfter: Number(hash.get('disappear') ?? 0) || 0,
    creator: hash.get('creator') || null,
    creatorName: hash.get('creator_name') || null,
  };
}

/** Rooms' settings records and removals in Redis (`chat:{room}:room`, `chat:{room}:removed`). */
export class RedisRoomSettingsStore extends RoomSettingsStore {
  /**
   * `disappearing`: registers a room whose messages now disappear with the sweep
   * (`RedisDisappearSweeper.register`).
   */
  constructor(
    private readonly redis: RedisConnections,
    private readonly roomTtlSeconds: number,
    private readonly disappearing: (room: string) => Promise<void>,
  ) {
    super();
  }

  async create(room: string, settings: NewRoom, creator: NameClaim): Promise<CreatedRoom> {
    const keys = roomKeys(room);
    const [created, fields] = (await create.run(
      this.redis.coalesced(),
      [keys.settings, keys.seq, keys.log, keys.presence],
      [
        settings.encrypted ? 1 : 0,
        settings.keyCheck ?? '',
        settings.disappearAfter,
        creator.holder,
        creator.name,
        this.roomTtlSeconds,
      ],
    )) as [number, string[]];
    if (created === 1 && settings.disappearAfter > 0) await this.disappearing(room);
    return { created: created === 1, record: recordOf(fields) };
  }

  async get(room: string): Promise<RoomRecord | null> {
    const fields = await get.run(
      this.redis.coalesced(),
      [roomKeys(room).settings],
      [this.roomTtlSeconds],
    );
    return recordOf(fields as string[]);
  }

  async checkCredentials(
    room: string,
    name: NameForms,
    bearer: string | null,
  ): Promise<CredentialsCheck> {
    const keys = roomKeys(room);
    const [fields, barred, member, names] = (await credentials.run(
      this.redis.coalesced(),
      [keys.settings, keys.removed, keys.presence],
      [name.key, name.skeleton, bearer ?? ''],
    )) as [string[], number, number, string[]];
    return {
      record: recordOf(fields),
      barred: barred === 1,
      member: member === 1,
      taken: clashesWithAny(names, name),
    };
  }

  async isRemoved(room: string, holder: string): Promise<boolean> {
    const keys = roomKeys(room);
    return (
      (await removed.run(this.redis.coalesced(), [keys.settings, keys.removed], [holder])) === 1
    );
  }

  async control(
    room: string,
    caller: string,
    command: RoomControl,
    removal: { holderMs: number; nameMs: number },
  ): Promise<ControlOutcome> {
    const keys = roomKeys(room);
    const answer = (await control.run(
      this.redis.coalesced(),
      [keys.settings, keys.removed, keys.presence],
      [
        caller,
        command.action,
        'target' in command ? command.target.key : '',
        command.action === 'disappear' ? command.after : 0,
        removal.holderMs,
        removal.nameMs,
        this.roomTtlSeconds,
      ],
    )) as [string, number?, string[]?, string?, string?];
    const [status, changed, fields = [], targetName = '', targetHolder = ''] = answer;
    if (status === 'not_creator' || status === 'not_present')
      return { done: false, refused: status };
    const record = recordOf(fields);
    if (record === null) throw new Error('The room control script answered without a record');
    const outcome: ControlOutcome = { done: true, changed: changed === 1, record };
    if (targetHolder !== '') outcome.target = { name: targetName, holder: targetHolder };
    if (outcome.changed && record.disappearAfter > 0 && command.action === 'disappear') {
      await this.disappearing(room);
    }
    return outcome;
  }

  async renamed(room: string, from: string, to: NameClaim): Promise<RoomRecord | null> {
    const fields = await renamed.run(
      this.redis.coalesced(),
      [roomKeys(room).settings],
      [from, to.holder, to.name],
    );
    return recordOf(fields as string[]);
  }
}
