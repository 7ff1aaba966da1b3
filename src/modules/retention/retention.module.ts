import { Module } from '@nestjs/common';
import { RetentionProcessor } from './retention.processor';
import { RetentionService } from './retention.service';

@Module({ providers: [RetentionService, RetentionProcessor], exports: [RetentionService] })
export class RetentionModule {}
