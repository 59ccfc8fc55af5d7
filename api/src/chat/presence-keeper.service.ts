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
import { type ChatConnection } from './chat-connection';
import { RoomHub } from './room-hub.service';

/**
 * Rooms refreshed at once. Each batch is one write and one burst of short scripts in Redis, small
 * enough that messages queued behind it wait a millisecond or two, not the whole pass.
 */
const ROOMS_PER_BATCH = 32;

/**
 * Keeps shared presence true across replicas: refreshes this replica's participants, and reports
 * those of replicas that stopped refreshing (killed, partitioned) as gone.
 */
@Injectable()
export class PresenceKeeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PresenceKeeper.name);
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly config: AppConfig,
    private readonly hub: RoomHub,
    private readonly presence: PresenceStore,
    private readonly bus: ChatBus,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), this.config.presenceRefreshMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /**
   * One pass over every room with local participants. Never overlaps itself. Rooms go in batches
   * whose commands leave in one write (the Redis driver coalesces a turn's commands), so a pass
   * costs one round trip per batch, not two per room; the batches are spread over the first half
   * of the refresh interval, so the pass never arrives as one burst in front of chat traffic.
   */
  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    let failed = 0;
    let firstError: unknown;
    const settle = async (batch: Promise<void>[]) => {
      for (const outcome of await Promise.allSettled(batch)) {
        if (outcome.status === 'fulfilled') continue;
        firstError ??= outcome.reason;
        failed++;
      }
    };
    try {
      const rooms = [...this.hub.rooms()];
      const batches = Math.ceil(rooms.length / ROOMS_PER_BATCH);
      const pauseMs = this.config.presenceRefreshMs / 2 / Math.max(1, batches);
      for (let start = 0; start < rooms.length; start += ROOMS_PER_BATCH) {
        if (start > 0) await sleep(pauseMs, undefined, { ref: false });
        await settle(
          rooms
            .slice(start, start + ROOMS_PER_BATCH)
            .map(([room, members]) => this.keep(room, members)),
        );
      }
      if (failed > 0) {
        this.logger.warn(`Presence refresh failed in ${failed} room(s): ${String(firstError)}`);
      }
    } finally {
      this.running = false;
    }
  }

  /** Refreshes this replica's participants of a room, then reaps the room (one step). */
  private async keep(room: string, members: ReadonlySet<ChatConnection>): Promise<void> {
    const entries = [...members].map((member) => ({
      claim: member.claim,
      connectionId: member.id,
    }));
    const { back, gone, taken, removed } = await this.presence.keep(room, entries);
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
    await Promise.all([
      ...back.map((name) => this.announce(room, name, true)),
      ...gone.map((name) => this.announce(room, name, false)),
    ]);
  }

  private announce(room: string, sender: string, connecting: boolean): Promise<void> {
    return this.bus.publish(room, presenceEvent(room, sender, connecting));
  }
}
