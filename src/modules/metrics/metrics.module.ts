import { Global, Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';
import { ServiceMetrics } from './ports/service-metrics';

@Global()
@Module({ controllers: [MetricsController], providers: [MetricsService, { provide: ServiceMetrics, useExisting: MetricsService }], exports: [MetricsService, ServiceMetrics] })
export class MetricsModule {}
