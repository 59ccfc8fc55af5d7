import { type ChatBus } from '../chat-bus.port';
import { type NameClaim, type NameForms, namesClash } from '../name-claim';
import {
  type ControlOutcome,
  type CreatedRoom,
  type CredentialsCheck,
  type NewRoom,
  type RoomControl,
  type RoomRecord,
  RoomSettingsStore,
} from '../room-settings.port';
import { type MemoryPresenceStore } from './memory-presence.store';

interface KeptRecord {
  record: RoomRecord;
  touchedAt: number;
}

/** The embedded driver's settings records and removals, in this process. */
export class MemoryRoomSettingsStore extends RoomSettingsStore {
  private readonly records = new Map<string, KeptRecord>();
  /** room → `h:<holder>`, `k:<key>`, `s:<skeleton>` → until when (ms) it holds. */
  private readonly removals = new Map<string, Map<string, number>>();

  constructor(
    private readonly bus: Pick<ChatBus, 'hasRoom'>,
    private readonly presence: MemoryPresenceStore,
    private readonly roomTtlMs: number,
    private readonly now: () => number,
  ) {
    super();
  }

  async create(room: string, settings: NewRoom, creator: NameClaim): Promise<CreatedRoom> {
    const existing = this.record(room);
    // The same creator's call again (a retry) finds its own room.
    if (existing) return { created: existing.creator === creator.holder, record: existing };
    if (this.presence.claims(room).length > 0 || (await this.bus.hasRoom(room))) {
      return { created: false, record: null };
    }
    // Checked again after the await: another create may have made it meanwhile.
    const raced = this.record(room);
    if (raced) return { created: false, record: raced };
    const record: RoomRecord = {
      ...settings,
      locked: false,
      creator: creator.holder,
      creatorName: creator.name,
    };
    this.records.set(room, { record, touchedAt: this.now() });
    return { created: true, record: { ...record } };
  }

  get(room: string): Promise<RoomRecord | null> {
    return Promise.resolve(this.record(room));
  }

  checkCredentials(
    room: string,
    name: NameForms,
    bearer: string | null,
  ): Promise<CredentialsCheck> {
    return Promise.resolve({
      record: this.record(room),
      barred: this.inForce(room, `k:${name.key}`) || this.inForce(room, `s:${name.skeleton}`),
      member: bearer !== null && !this.inForce(room, `h:${bearer}`),
      taken: this.presence.claims(room).some((present) => namesClash(present, name)),
    });
  }

  isRemoved(room: string, holder: string): Promise<boolean> {
    return Promise.resolve(this.removedNow(room, holder));
  }

  /** Synchronous `isRemoved`, for the embedded presence store's join. */
  removedNow(room: string, holder: string): boolean {
    return this.inForce(room, `h:${holder}`);
  }

  control(
    room: string,
    caller: string,
    command: RoomControl,
    removal: { holderMs: number; nameMs: number },
  ): Promise<ControlOutcome> {
    const kept = this.records.get(room);
    if (!kept || kept.record.creator !== caller) {
      return Promise.resolve({ done: false, refused: 'not_creator' });
    }
    kept.touchedAt = this.now();
    const { record } = kept;
    const done = (changed: boolean, target?: NameClaim): Promise<ControlOutcome> => {
      const outcome: ControlOutcome = { done: true, changed, record: { ...record } };
      if (target) outcome.target = { name: target.name, holder: target.holder };
      return Promise.resolve(outcome);
    };
    switch (command.action) {
      case 'lock':
      case 'unlock': {
        const locked = command.action === 'lock';
        const changed = record.locked !== locked;
        record.locked = locked;
        return done(changed);
      }
      case 'disappear': {
        const changed = record.disappearAfter !== command.after;
        record.disappearAfter = command.after;
        return done(changed);
      }
      default: {
        const target = this.presence
          .claims(room)
          .find((claim) => claim.key === command.target.key && claim.holder !== caller);
        if (!target) return Promise.resolve({ done: false, refused: 'not_present' });
        if (command.action === 'hand_over') {
          record.creator = target.holder;
          record.creatorName = target.name;
        } else {
          const now = this.now();
          let removed = this.removals.get(room);
          if (!removed) this.removals.set(room, (removed = new Map<string, number>()));
          removed.set(`h:${target.holder}`, now + removal.holderMs);
          removed.set(`k:${target.key}`, now + removal.nameMs);
          removed.set(`s:${target.skeleton}`, now + removal.nameMs);
        }
        return done(true, target);
      }
    }
  }

  renamed(room: string, from: string, to: NameClaim): Promise<RoomRecord | null> {
    const kept = this.records.get(room);
    if (!kept || kept.record.creator !== from) return Promise.resolve(null);
    kept.record.creator = to.holder;
    kept.record.creatorName = to.name;
    return Promise.resolve({ ...kept.record });
  }

  /** Every room whose messages disappear, with after how many seconds (§6.13). */
  *disappearing(): IterableIterator<[string, number]> {
    for (const [room, { record }] of this.records) {
      if (record.disappearAfter > 0) yield [room, record.disappearAfter];
    }
  }

  /** Seconds after which the room's messages disappear; 0 for never. */
  disappearAfter(room: string): number {
    return this.records.get(room)?.record.disappearAfter ?? 0;
  }

  /** Forgets records idle past the room TTL with no one in their room, and lapsed removals. */
  sweep(): void {
    const now = this.now();
    for (const [room, kept] of this.records) {
      if (kept.touchedAt < now - this.roomTtlMs && this.presence.claims(room).length === 0) {
        this.records.delete(room);
      }
    }
    for (const [room, removed] of this.removals) {
      for (const [field, until] of removed) if (until <= now) removed.delete(field);
      if (removed.size === 0) this.removals.delete(room);
    }
  }

  private record(room: string): RoomRecord | null {
    const kept = this.records.get(room);
    if (!kept) return null;
    kept.touchedAt = this.now();
    return { ...kept.record };
  }

  private inForce(room: string, field: string): boolean {
    const until = this.removals.get(room)?.get(field);
    return until !== undefined && until > this.now();
  }
}
