import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { encodeFrame, FrameType } from '@taco/protocol';
import { ChatBus } from '../bus/chat-bus.port';
import { PresenceStore } from '../bus/presence.port';
import { AppConfig } from '../config/app-config';
import { RoomHub } from './room-hub.service';

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

  /** One pass over every room with local participants. Never overlaps itself. */
  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (const [room, members] of this.hub.rooms()) {
        const entries = [...members].map((member) => ({
          name: member.name,
          connectionId: member.id,
        }));
        const back = await this.presence.refresh(room, entries);
        const gone = await this.presence.reap(room);
        for (const name of back) await this.announce(room, name, true);
        for (const name of gone) await this.announce(room, name, false);
      }
    } catch (error) {
      this.logger.warn(`Presence refresh failed: ${String(error)}`);
    } finally {
      this.running = false;
    }
  }

  private announce(room: string, sender: string, connecting: boolean): Promise<void> {
    return this.bus.publish(room, {
      frame: encodeFrame({ type: FrameType.Presence, room, sender, connecting }),
    });
  }
}
