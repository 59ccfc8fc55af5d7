import { Injectable } from '@nestjs/common';
import { ChatBus } from '../bus/chat-bus.port';

/** Whether this replica should receive traffic. */
@Injectable()
export class HealthService {
  private draining = false;

  constructor(private readonly bus: ChatBus) {}

  /** From now on the replica reports not ready, so the load balancer moves traffic away. */
  startDraining(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  async isReady(): Promise<boolean> {
    if (this.draining) return false;
    try {
      return await this.bus.isReady();
    } catch {
      return false;
    }
  }
}
