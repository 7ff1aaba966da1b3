import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiExcludeController } from '@nestjs/swagger';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { DomainError } from '../../common/errors/domain-error';
import { presentsSecret } from '../../common/http/authorization-header';
import { MetricsService } from './metrics.service';

@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** the text type is set on the metrics alone: an error keeps the envelope's JSON type */
  @Get()
  async scrape(@Res({ passthrough: true }) res: Response, @Headers('authorization') authorization?: string): Promise<string> {
    if (!this.config.env.METRICS_ENABLED) throw DomainError.notFound('Route');
    const token = this.config.env.METRICS_TOKEN;
    if (token && !presentsSecret(authorization, token)) {
      throw new DomainError('forbidden', 'Metrics need Authorization: Bearer <METRICS_TOKEN>');
    }
    const text = await this.metrics.registry.metrics();
    res.type('text/plain; version=0.0.4; charset=utf-8');
    return text;
  }
}
