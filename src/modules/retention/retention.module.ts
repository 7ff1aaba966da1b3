import { Module } from '@nestjs/common';
import { RetentionProcessor } from './adapters/bullmq/retention.processor';
import { TypeOrmRetentionStore } from './adapters/typeorm/typeorm.retention-store';
import { RetentionService } from './application/retention.service';
import { RetentionStore } from './ports/retention-store';

@Module({ providers: [RetentionService, RetentionProcessor, { provide: RetentionStore, useClass: TypeOrmRetentionStore }], exports: [RetentionService] })
export class RetentionModule {}
