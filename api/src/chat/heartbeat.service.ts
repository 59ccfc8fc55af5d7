import {
  type BeforeApplicationShutdown,
  Injectable,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { MISSED_PONGS_LIMIT } from '@taco/protocol';
import { AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { RoomHub } from './room-hub.service';

/** Sockets pinged per turn of the event loop. */
const PINGS_PER_TURN = 256;

/**
 * The server's side of liveness: pings every connection each ping interval and drops one that
 * missed too many pongs (a pong resets the count, see `ChatConnection`). Stops when shutdown
 * begins, so draining sockets are not pinged.
 */
@Injectable()
export class HeartbeatService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private pinging = false;

  constructor(
    private readonly config: AppConfig,
    private readonly hub: RoomHub,
    private readonly metrics: MetricsService,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.pingAll(), this.config.pingIntervalMs);
    this.timer.unref();
  }

  beforeApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /**
   * Drops connections that missed too many pongs, and pings the rest, a slice per turn of the
   * event loop so that a round over many thousands of sockets never holds up chat frames.
   */
  async pingAll(): Promise<void> {
    if (this.pinging) return;
    this.pinging = true;
    try {
      let done = 0;
      for (const connection of [...this.hub.connections()]) {
        if (connection.missedPongs >= MISSED_PONGS_LIMIT) {
          this.metrics.closes.inc({ code: 'timeout' });
          connection.terminate();
        } else {
          connection.missedPongs++;
          connection.ping();
        }
        if (++done % PINGS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.pinging = false;
    }
  }
}
