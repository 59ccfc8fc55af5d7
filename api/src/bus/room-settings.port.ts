import { type NameClaim, type NameForms } from './name-claim';

/** The settings a room is created with (protocol/README.md §2.2, §6.9). */
export interface NewRoom {
  encrypted: boolean;
  /** The key check of an encrypted room (§6.12); null in a plain room. */
  keyCheck: string | null;
  /** Seconds after which messages disappear; 0: never (§6.13). */
  disappearAfter: number;
}

/** A room's settings record (§6.9, §8.1). */
export interface RoomRecord extends NewRoom {
  locked: boolean;
  /** The holder (`TokenHolder.holder`) of the creator right; null when the room has none. */
  creator: string | null;
  /** The name the creator right was last taken or moved under. */
  creatorName: string | null;
}

/** What `RoomSettingsStore.create` did. */
export interface CreatedRoom {
  /** True when the room did not exist and was made now, with `creator` holding its right. */
  created: boolean;
  /** The room's record (the one made now, or the existing one; null: it exists without one). */
  record: RoomRecord | null;
}

/** What the credential calls need to know of a room and a name (§2.2, §2.3, §6.10, §6.11). */
export interface CredentialsCheck {
  record: RoomRecord | null;
  /** The name collides with one barred after a removal. */
  barred: boolean;
  /** The `Authorization` token's holder, when one was shown, and it was not removed. */
  member: boolean;
  /** A name present in the room passes for this one (§3.4): the same key or skeleton. */
  taken: boolean;
}

/** A creator's control (frame 9), the target already resolved to its name forms. */
export type RoomControl =
  | { action: 'lock' | 'unlock' }
  | { action: 'remove' | 'hand_over'; target: NameForms }
  | { action: 'disappear'; after: number };

/** What a control did. */
export type ControlOutcome =
  | { done: false; refused: 'not_creator' | 'not_present' }
  | {
      done: true;
      /** False when the room was that way already (locking a locked room). */
      changed: boolean;
      record: RoomRecord;
      /** The participant removed or given the right, as present in the room. */
      target?: Pick<NameClaim, 'name' | 'holder'>;
    };

/**
 * Rooms' settings records and removals, shared by every replica (§6.9–§6.11): made by the create
 * call, read at every connect and credential call, changed by the creator's controls. Each change
 * is one atomic step, so two replicas never both apply a control the other one undid.
 */
export abstract class RoomSettingsStore {
  /**
   * Makes the room with `settings`, and `creator` holding its right, unless it exists (a record,
   * someone present, a stored sequence or history): one atomic step.
   */
  abstract create(room: string, settings: NewRoom, creator: NameClaim): Promise<CreatedRoom>;
  /** The room's record, or null; refreshes its lifetime (a connect keeps a used room alive). */
  abstract get(room: string): Promise<RoomRecord | null>;
  /**
   * For a credential call, in one step: the record, whether `name` is barred or taken by someone
   * present, and whether `bearer` (the holder of a token the caller showed, if any) was not
   * removed.
   */
  abstract checkCredentials(
    room: string,
    name: NameForms,
    bearer: string | null,
  ): Promise<CredentialsCheck>;
  /** Whether `holder` was removed from the room (its tokens and tickets open nothing). */
  abstract isRemoved(room: string, holder: string): Promise<boolean>;
  /**
   * Applies a control of `caller` (a holder): refused unless it holds the creator right, and for
   * remove and hand-over unless the target is present under another holder. A removal records
   * the target's holder for `holderMs` and its name forms for `nameMs`.
   */
  abstract control(
    room: string,
    caller: string,
    control: RoomControl,
    removal: { holderMs: number; nameMs: number },
  ): Promise<ControlOutcome>;
  /**
   * A rename: when `from` holds the creator right, it moves to `to` under its new name. Returns
   * the record when it moved, else null.
   */
  abstract renamed(room: string, from: string, to: NameClaim): Promise<RoomRecord | null>;
}
