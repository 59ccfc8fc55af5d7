import { type ChatBus, type RoomEvent } from '../chat-bus.port';
import { type NameClaim, nameForms, namesClash } from '../name-claim';
import {
  type PresenceEntry,
  type PresenceJoin,
  type PresenceKept,
  type PresenceLeave,
  PresenceStore,
  type PresenceTended,
} from '../presence.port';

/** The embedded driver: presence of this process's own connections. */
export class MemoryPresenceStore extends PresenceStore {
  /**
   * room → entry → the name it holds there; an entry is a connection and its name (`entry`), as a
   * connection holds its old and new names for a moment while it renames.
   */
  private readonly rooms = new Map<string, Map<string, NameClaim>>();

  /**
   * `bus`: where `announce` events go (the embedded server's own bus); `isRemoved`: whether a
   * holder was removed from a room, which refuses its joins.
   */
  constructor(
    private readonly bus?: Pick<ChatBus, 'publish'>,
    private readonly isRemoved: (room: string, holder: string) => boolean = () => false,
  ) {
    super();
  }

  async join(
    room: string,
    claim: NameClaim,
    connectionId: string,
    announce?: RoomEvent,
    formerHolder?: string,
  ): Promise<PresenceJoin> {
    const joined = this.add(room, claim, connectionId, formerHolder);
    if (!joined.taken && joined.first && announce) await this.announce(room, announce);
    return joined;
  }

  async leave(
    room: string,
    claim: NameClaim,
    connectionId: string,
    announce?: RoomEvent,
  ): Promise<PresenceLeave> {
    const left = this.remove(room, claim, connectionId);
    if (left.last && announce) await this.announce(room, announce);
    return left;
  }

  private announce(room: string, event: RoomEvent): Promise<void> {
    if (!this.bus) throw new Error('MemoryPresenceStore: no bus to announce on');
    return this.bus.publish(room, event);
  }

  private add(
    room: string,
    claim: NameClaim,
    connectionId: string,
    formerHolder: string | undefined,
  ): PresenceJoin {
    if (this.isRemoved(room, claim.holder)) return { taken: true, removed: true };
    let connections = this.rooms.get(room);
    if (!connections) this.rooms.set(room, (connections = new Map<string, NameClaim>()));
    let first = true;
    for (const present of connections.values()) {
      if (present.name === claim.name) first = false;
      const mine = present.holder === claim.holder || present.holder === formerHolder;
      if (!mine && namesClash(present, claim)) return { taken: true };
    }
    connections.set(entry(connectionId, claim), claim);
    return { taken: false, first, roster: namesOf(connections) };
  }

  private remove(room: string, claim: NameClaim, connectionId: string): PresenceLeave {
    const connections = this.rooms.get(room);
    if (!connections?.delete(entry(connectionId, claim))) return { last: false };
    if (connections.size === 0) this.rooms.delete(room);
    for (const present of connections.values()) {
      if (present.name === claim.name) return { last: false };
    }
    return { last: true };
  }

  isTaken(room: string, name: string): Promise<boolean> {
    const forms = nameForms(name);
    for (const present of this.rooms.get(room)?.values() ?? []) {
      if (namesClash(present, forms)) return Promise.resolve(true);
    }
    return Promise.resolve(false);
  }

  /** The claims of every connection in the room now. */
  claims(room: string): NameClaim[] {
    return [...(this.rooms.get(room)?.values() ?? [])];
  }

  names(room: string): Promise<string[]> {
    const connections = this.rooms.get(room);
    return Promise.resolve(connections ? namesOf(connections) : []);
  }

  /**
   * This process's own connections never go stale: they leave when they close. Nor is a room frame
   * ever lost here, so a removed holder's connections are closed already; any left are reported.
   */
  keep(room: string, entries: PresenceEntry[]): Promise<PresenceKept> {
    const removed = entries
      .filter(({ claim }) => this.isRemoved(room, claim.holder))
      .map(({ connectionId }) => connectionId);
    return Promise.resolve({ back: [], taken: [], removed });
  }

  /** One process: nothing to renew, and no other replica to outlive. */
  tend(): Promise<PresenceTended> {
    return Promise.resolve({ lapsed: false, gone: [] });
  }
}

const entry = (connectionId: string, { name }: NameClaim) => `${connectionId}\n${name}`;

/** Each name held by some connection, once. */
function namesOf(connections: ReadonlyMap<string, NameClaim>): string[] {
  return [...new Set(Array.from(connections.values(), (claim) => claim.name))];
}
