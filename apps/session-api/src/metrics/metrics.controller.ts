import { Controller, Get, Header } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Metrics, Public } from '#platform';
import { ApiRoute } from '../docs/api-route.decorator.js';

@ApiTags('operations')
@Controller('metrics')
@Public()
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @ApiRoute({
    summary: 'Prometheus metrics',
    description: 'Appends, append latency histogram, projection lag, recovery decisions by cause, and more (README "Metrics").',
    ok: { description: 'The Prometheus text exposition format.', mediaType: 'text/plain' },
  })
  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
