import { Injectable } from '@nestjs/common';
import { ChatBus } from '../bus/chat-bus.port';
import { MetricsService } from '../metrics/metrics.service';

/** Whether this replica should receive traffic. */
@Injectable()
export class HealthService {
  private draining = false;

  constructor(
    private readonly bus: ChatBus,
    metrics: MetricsService,
  ) {
    // Prometheus sees what a load balancer sees on /api/health/ready (`taco_ready`).
    metrics.reportReadiness(() => this.isReady());
  }

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
