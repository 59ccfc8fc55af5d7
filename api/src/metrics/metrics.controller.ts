import { Controller, Get, Header } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { MetricsService } from './metrics.service';

@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  render(): string {
    return this.metrics.render(this.config.replicaId);
  }
}
