import { createHash, timingSafeEqual } from 'node:crypto';
import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiExcludeController } from '@nestjs/swagger';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { DomainError } from '../../common/errors/domain-error';
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
    if (token && !sameSecret(authorization?.replace(/^Bearer\s+/i, '') ?? '', token)) {
      throw new DomainError('forbidden', 'Metrics need Authorization: Bearer <METRICS_TOKEN>');
    }
    const text = await this.metrics.registry.metrics();
    res.type('text/plain; version=0.0.4; charset=utf-8');
    return text;
  }
}

/** compared as digests of equal length, in constant time */
function sameSecret(presented: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
