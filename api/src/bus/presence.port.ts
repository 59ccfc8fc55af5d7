import { createHash } from 'node:crypto';
import { type RoomEvent } from './chat-bus.port';

/** How long the other connections of a renamed name may follow it (`PresenceStore.noteRename`). */
export const RENAME_FOLLOW_MS = 60 * 60 * 1000;

/** What the stores keep of a rename's token: a digest, never the token. */
export function renameTokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('base64url').slice(0, 22);
}

export interface PresenceJoin {
  /** True when this is the name's first connection in the room. */
  first: boolean;
  /** Every name present in the room, the newcomer included. */
  roster: string[];
}

export interface PresenceLeave {
  /** True when that was the name's last connection in the room. */
  last: boolean;
}

/** What one pass over a room (`PresenceStore.keep`) found. */
export interface PresenceKept {
  /** Names that had been reported gone meanwhile and are present again: the others are told. */
  back: string[];
  /** Names whose every connection belonged to replicas that stopped refreshing: now gone. */
  gone: string[];
}

/** One local connection, as presence knows it. */
export interface PresenceEntry {
  name: string;
  connectionId: string;
}

/**
 * Who is connected to which room: a name is present while any of its connections is.
 * Shared drivers keep each replica's entries alive, and find the participants of replicas that
 * stopped refreshing theirs, with `keep`.
 */
export abstract class PresenceStore {
  /**
   * Adds a connection. With `announce`, that event is published to the room (as
   * `ChatBus.publish` does) when this is the name's first connection there, in the same step:
   * with Redis, joining and announcing are one round trip.
   */
  abstract join(
    room: string,
    name: string,
    connectionId: string,
    announce?: RoomEvent,
  ): Promise<PresenceJoin>;
  /**
   * Removes a connection. With `announce`, that event is published to the room when it was the
   * name's last connection there, in the same step.
   */
  abstract leave(
    room: string,
    name: string,
    connectionId: string,
    announce?: RoomEvent,
  ): Promise<PresenceLeave>;
  /** Whether a name is connected in the room, compared trimmed and case-insensitively. */
  abstract isPresent(room: string, name: string): Promise<boolean>;
  /** Every name connected in the room now. */
  abstract names(room: string): Promise<string[]>;
  /**
   * Notes the token a connection renamed with while its old name kept other connections (the
   * browser's other tabs), so that those may follow it into the new name with the same token for
   * a while (`RENAME_FOLLOW_MS`), although that name is present by then.
   */
  abstract noteRename(room: string, token: string): Promise<void>;
  /** Whether a rename with this token was noted in the room (and not long ago). */
  abstract mayFollowRename(room: string, token: string): Promise<boolean>;
  /**
   * One pass over a room: keeps this replica's connections there alive, then removes those of
   * replicas that stopped keeping theirs (in that order, in one step).
   */
  abstract keep(room: string, entries: PresenceEntry[]): Promise<PresenceKept>;
}
