import { type RoomEvent } from './chat-bus.port';
import { type NameClaim } from './name-claim';

export type PresenceJoin =
  | {
      taken: false;
      /** True when this is the name's first connection in the room. */
      first: boolean;
      /** Every name present in the room, the newcomer included. */
      roster: string[];
    }
  /**
   * Someone else holds the name, or one that passes for it (`namesClash`), or, with `removed`,
   * the holder was removed from the room (protocol/README.md §6.11): nothing was added.
   */
  | { taken: true; removed?: true };

export interface PresenceLeave {
  /** True when that was the name's last connection in the room. */
  last: boolean;
}

/** What one pass over a room (`PresenceStore.keep`) found. */
export interface PresenceKept {
  /** Names that had been lost meanwhile (reaped, or lost by Redis) and are present again. */
  back: string[];
  /**
   * Connections of this replica that had been lost and whose name someone else took meanwhile:
   * not brought back; the replica closes them (`CloseCode.NameTaken`).
   */
  taken: string[];
  /**
   * Connections of this replica whose holder was removed from the room (protocol/README.md
   * §6.11) while the replica missed the room frame that said so (its subscription was down): not
   * kept; the replica closes them (`CloseCode.Removed`).
   */
  removed: string[];
}

/** What one renewal of the replica's presence (`PresenceStore.tend`) found. */
export interface PresenceTended {
  /**
   * This replica's presence had lapsed (it could not renew it in time: a stall, Redis away), so
   * others may have removed its members: every room needs a `keep`.
   */
  lapsed: boolean;
  /** Names that left with replicas that stopped renewing their presence, per room. */
  gone: { room: string; names: string[] }[];
}

/** One local connection, as presence knows it. */
export interface PresenceEntry {
  claim: NameClaim;
  connectionId: string;
}

/**
 * Who is connected to which room: a name is present while any of its connections is. At any
 * moment a name, and every name that passes for it (`namesClash`), belongs to one holder (one
 * credential: a browser's tabs, and the connections that follow its rename), on every replica.
 * Shared drivers keep each replica's presence alive as a whole, not member by member (`tend`),
 * remove the participants of replicas that stopped doing so, and put a replica's members back
 * where they may have been lost (`keep`).
 */
export abstract class PresenceStore {
  /**
   * Adds a connection, unless its holder was removed from the room, or a name that clashes with
   * `claim` is present under another holder than `claim.holder` (or `formerHolder`: a rename's own
   * old credential); checked and added in one step, so two holders racing for a name on two replicas cannot both get it. With
   * `announce`, that event is published to the room (as `ChatBus.publish` does) when this is the
   * name's first connection there, in the same step: with Redis, one round trip.
   */
  abstract join(
    room: string,
    claim: NameClaim,
    connectionId: string,
    announce?: RoomEvent,
    formerHolder?: string,
  ): Promise<PresenceJoin>;
  /**
   * Removes a connection (as it joined, with its claim). With `announce`, that event is published
   * to the room when it was the name's last connection there, in the same step.
   */
  abstract leave(
    room: string,
    claim: NameClaim,
    connectionId: string,
    announce?: RoomEvent,
  ): Promise<PresenceLeave>;
  /**
   * Whether a name present in the room would pass for `name` (`namesClash`: the same key, or the
   * same skeleton): new credentials for it are refused.
   */
  abstract isTaken(room: string, name: string): Promise<boolean>;
  /** Every name connected in the room now. */
  abstract names(room: string): Promise<string[]>;
  /**
   * One pass over a room, when this replica's members there may have been lost: adds back those
   * that are missing, unless their name was taken meanwhile or their holder removed.
   */
  abstract keep(room: string, entries: PresenceEntry[]): Promise<PresenceKept>;
  /**
   * Renews this replica's presence (one step, however many members it has), and removes the
   * members of replicas that stopped renewing theirs.
   */
  abstract tend(): Promise<PresenceTended>;
}
