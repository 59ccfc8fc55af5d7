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

/** Who is connected to which room: a name is present while any of its connections is. */
export abstract class PresenceStore {
  abstract join(room: string, name: string, connectionId: string): Promise<PresenceJoin>;
  abstract leave(room: string, name: string, connectionId: string): Promise<PresenceLeave>;
  /** Whether a name is connected in the room, compared trimmed and case-insensitively. */
  abstract isPresent(room: string, name: string): Promise<boolean>;
}
