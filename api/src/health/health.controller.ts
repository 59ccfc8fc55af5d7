import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { DRAINING_MESSAGE, STORAGE_UNREACHABLE_MESSAGE } from '@taco/protocol';
import { HealthService } from './health.service';

@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  /** The process is up. */
  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** The replica can take traffic: not draining, storage reachable. */
  @Get('ready')
  async ready(): Promise<{ status: 'ready' }> {
    if (!(await this.health.isReady())) {
      throw new ServiceUnavailableException(
        this.health.isDraining ? DRAINING_MESSAGE : STORAGE_UNREACHABLE_MESSAGE,
      );
    }
    return { status: 'ready' };
  }
}
