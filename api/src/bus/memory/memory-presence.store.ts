import { isSameUserName } from '@taco/protocol';
import { type ChatBus, type RoomEvent } from '../chat-bus.port';
import {
  type PresenceJoin,
  type PresenceKept,
  type PresenceLeave,
  PresenceStore,
} from '../presence.port';

/** The embedded driver: presence of this process's own connections. */
export class MemoryPresenceStore extends PresenceStore {
  /** room → name → connection ids */
  private readonly rooms = new Map<string, Map<string, Set<string>>>();

  /** `bus`: where `announce` events go (the embedded server's own bus). */
  constructor(private readonly bus?: Pick<ChatBus, 'publish'>) {
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
    if (names.size === 0) this.rooms.delete(room);
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

  /** This process's own connections never go stale: they leave when they close. */
  keep(): Promise<PresenceKept> {
    return Promise.resolve({ back: [], gone: [] });
  }
}
