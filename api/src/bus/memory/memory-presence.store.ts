import { isSameUserName } from '@taco/protocol';
import { type ChatBus, type RoomEvent } from '../chat-bus.port';
import {
  type PresenceJoin,
  type PresenceKept,
  type PresenceLeave,
  PresenceStore,
  RENAME_FOLLOW_MS,
  renameTokenDigest,
} from '../presence.port';

/** The embedded driver: presence of this process's own connections. */
export class MemoryPresenceStore extends PresenceStore {
  /** room → name → connection ids */
  private readonly rooms = new Map<string, Map<string, Set<string>>>();

  /** room → digest of a rename's token → when its followers' time runs out */
  private readonly renames = new Map<string, Map<string, number>>();

  /** `bus`: where `announce` events go (the embedded server's own bus). */
  constructor(
    private readonly bus?: Pick<ChatBus, 'publish'>,
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

  async join(
    room: string,
    name: string,
    connectionId: string,
    announce?: RoomEvent,
  ): Promise<PresenceJoin> {
    const joined = this.add(room, name, connectionId);
    if (joined.first && announce) await this.announce(room, announce);
    return joined;
  }

  async leave(
    room: string,
    name: string,
    connectionId: string,
    announce?: RoomEvent,
  ): Promise<PresenceLeave> {
    const left = this.remove(room, name, connectionId);
    if (left.last && announce) await this.announce(room, announce);
    return left;
  }

  private announce(room: string, event: RoomEvent): Promise<void> {
    if (!this.bus) throw new Error('MemoryPresenceStore: no bus to announce on');
    return this.bus.publish(room, event);
  }

  private add(room: string, name: string, connectionId: string): PresenceJoin {
    let names = this.rooms.get(room);
    if (!names) {
      names = new Map();
      this.rooms.set(room, names);
    }
    let connections = names.get(name);
    const first = connections === undefined;
    if (!connections) {
      connections = new Set();
      names.set(name, connections);
    }
    connections.add(connectionId);
    return { first, roster: [...names.keys()] };
  }

  private remove(room: string, name: string, connectionId: string): PresenceLeave {
    const names = this.rooms.get(room);
    const connections = names?.get(name);
    if (!names || !connections?.delete(connectionId)) return { last: false };
    if (connections.size > 0) return { last: false };
    names.delete(name);
    if (names.size === 0) {
      this.rooms.delete(room);
      // No one is left to follow a rename.
      this.renames.delete(room);
    }
    return { last: true };
  }

  isPresent(room: string, name: string): Promise<boolean> {
    const names = this.rooms.get(room);
    if (!names) return Promise.resolve(false);
    for (const present of names.keys()) {
      if (isSameUserName(present, name)) return Promise.resolve(true);
    }
    return Promise.resolve(false);
  }

  names(room: string): Promise<string[]> {
    return Promise.resolve([...(this.rooms.get(room)?.keys() ?? [])]);
  }

  noteRename(room: string, token: string): Promise<void> {
    const now = this.now();
    let renames = this.renames.get(room);
    if (!renames) this.renames.set(room, (renames = new Map<string, number>()));
    for (const [digest, until] of renames) if (until <= now) renames.delete(digest);
    renames.set(renameTokenDigest(token), now + RENAME_FOLLOW_MS);
    return Promise.resolve();
  }

  mayFollowRename(room: string, token: string): Promise<boolean> {
    const until = this.renames.get(room)?.get(renameTokenDigest(token));
    return Promise.resolve(until !== undefined && until > this.now());
  }

  /** This process's own connections never go stale: they leave when they close. */
  keep(): Promise<PresenceKept> {
    return Promise.resolve({ back: [], gone: [] });
  }
}
