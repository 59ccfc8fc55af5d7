import { setTimeout as sleep } from 'node:timers/promises';
import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { CloseCode, CloseReason } from '@taco/protocol';
import { ChatBus } from '../bus/chat-bus.port';
import { PresenceStore } from '../bus/presence.port';
import { presenceEvent } from '../bus/room-events';
import { AppConfig } from '../config/app-config';
import { RoomHub } from './room-hub.service';

/**
 * Rooms kept at once. Each batch is one write and one burst of short scripts in Redis, small
 * enough that messages queued behind it wait a millisecond or two, not the whole pass.
 */
const ROOMS_PER_BATCH = 32;

/**
 * Keeps shared presence true across replicas. Every refresh interval it renews this replica's
 * presence as a whole (one step in Redis however many members it has: a quiet member costs
 * nothing) and reports the participants of replicas that stopped renewing theirs (killed,
 * partitioned) as gone. Where this replica's members may have been lost (its presence lapsed,
 * Redis lost data, a subscription was down and missed a removal), it puts them back room by room.
 */
@Injectable()
export class PresenceKeeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PresenceKeeper.name);
  private timer: NodeJS.Timeout | undefined;
  private tending = false;
  /** Rooms whose subscription was made again: kept at the next `keepPending`. */
  private readonly pending = new Set<string>();
  private keeping: Promise<void> | null = null;
  /** Rooms whose keep failed (Redis away): tried again at the next renewal. */
  private readonly failed = new Set<string>();

  constructor(
    private readonly config: AppConfig,
    private readonly hub: RoomHub,
    private readonly presence: PresenceStore,
    private readonly bus: ChatBus,
  ) {}

  onApplicationBootstrap(): void {
    this.bus.onResubscribed((room) => {
      this.pending.add(room);
      void this.keepPending();
    });
    this.timer = setInterval(() => void this.tend(), this.config.presenceRefreshMs);
    this.timer.unref();
    void this.tend();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /**
   * Renews this replica's presence and announces who left with lapsed replicas; when this
   * replica's own presence had lapsed, puts its members back in every room. Never overlaps itself.
   */
  async tend(): Promise<void> {
    if (this.tending) return;
    this.tending = true;
    try {
      const { lapsed, gone } = await this.presence.tend();
      if (lapsed) {
        this.logger.warn('Presence had lapsed (not renewed in time): putting members back');
        for (const [room] of this.hub.rooms()) this.pending.add(room);
      }
      for (const room of this.failed) this.pending.add(room);
      this.failed.clear();
      await Promise.all(
        gone.flatMap(({ room, names }) => names.map((name) => this.announce(room, name, false))),
      );
      if (this.pending.size > 0) await this.keepPending();
    } catch (error) {
      this.logger.warn(`Presence renewal failed: ${String(error)}`);
    } finally {
      this.tending = false;
    }
  }

  /** A full pass: renews presence, then checks every room with local participants. */
  async tick(): Promise<void> {
    await this.tend();
    for (const [room] of this.hub.rooms()) this.pending.add(room);
    await this.keepPending();
  }

  /**
   * Keeps the pending rooms, in batches whose commands leave in one write; one run at a time
   * (rooms added meanwhile are taken by the run under way).
   */
  private keepPending(): Promise<void> {
    this.keeping ??= this.keepRooms().finally(() => (this.keeping = null));
    return this.keeping;
  }

  private async keepRooms(): Promise<void> {
    let firstError: unknown;
    for (let first = true; this.pending.size > 0; first = false) {
      if (!first) await sleep(0, undefined, { ref: false });
      const batch = [...this.pending].slice(0, ROOMS_PER_BATCH);
      for (const room of batch) this.pending.delete(room);
      const outcomes = await Promise.allSettled(batch.map((room) => this.keep(room)));
      batch.forEach((room, i) => {
        const outcome = outcomes[i];
        if (outcome?.status !== 'rejected') return;
        firstError ??= outcome.reason;
        this.failed.add(room);
      });
    }
    if (this.failed.size > 0) {
      this.logger.warn(
        `Presence check failed in ${this.failed.size} room(s): ${String(firstError)}`,
      );
    }
  }

  /** Puts this replica's participants of a room back where they were lost. */
  private async keep(room: string): Promise<void> {
    const members = this.hub.membersOf(room);
    if (!members || members.size === 0) return;
    const entries = [...members].map((member) => ({
      claim: member.claim,
      connectionId: member.id,
    }));
    const { back, taken, removed } = await this.presence.keep(room, entries);
    if (taken.length > 0) {
      const refused = new Set(taken);
      for (const member of members) if (refused.has(member.id)) member.refuseName();
    }
    if (removed.length > 0) {
      const out = new Set(removed);
      for (const member of members) {
        if (out.has(member.id)) member.close(CloseCode.Removed, CloseReason.Removed);
      }
    }
    await Promise.all(back.map((name) => this.announce(room, name, true)));
  }

  private announce(room: string, sender: string, connecting: boolean): Promise<void> {
    return this.bus.publish(room, presenceEvent(room, sender, connecting));
  }
}
