import { isSameUserName } from '@taco/protocol';
import { type PresenceJoin, type PresenceLeave, PresenceStore } from '../presence.port';

/** The embedded driver: presence of this process's own connections. */
export class MemoryPresenceStore extends PresenceStore {
  /** room → name → connection ids */
  private readonly rooms = new Map<string, Map<string, Set<string>>>();

  join(room: string, name: string, connectionId: string): Promise<PresenceJoin> {
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
    return Promise.resolve({ first, roster: [...names.keys()] });
  }

  leave(room: string, name: string, connectionId: string): Promise<PresenceLeave> {
    const names = this.rooms.get(room);
    const connections = names?.get(name);
    if (!names || !connections?.delete(connectionId)) return Promise.resolve({ last: false });
    if (connections.size > 0) return Promise.resolve({ last: false });
    names.delete(name);
    if (names.size === 0) this.rooms.delete(room);
    return Promise.resolve({ last: true });
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
  refresh(): Promise<string[]> {
    return Promise.resolve([]);
  }

  reap(): Promise<string[]> {
    return Promise.resolve([]);
  }
}
