import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { configureRetentionProcessor, RetentionProcessor } from './adapters/bullmq/retention.processor';
import { TypeOrmRetentionStore } from './adapters/typeorm/typeorm.retention-store';
import { OrphanSweep } from './application/orphan-sweep';
import { RetentionService } from './application/retention.service';
import { RetentionStore } from './ports/retention-store';

@Module({ providers: [RetentionService, OrphanSweep, RetentionProcessor, { provide: RetentionStore, useClass: TypeOrmRetentionStore }], exports: [RetentionService] })
export class RetentionModule {
  static forRoot(config: AppConfig): DynamicModule {
    configureRetentionProcessor(config);
    return { module: RetentionModule };
  }
}
