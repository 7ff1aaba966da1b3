import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { AuthModule } from '../auth/auth.module';
import { TypeOrmUsageStore } from './adapters/typeorm/typeorm.usage-store';
import { UsageContextInterceptor } from './adapters/http/usage-tracking';
import { UsageController } from './adapters/http/usage.controller';
import { UsagePruner } from './application/usage-pruner';
import { UsageRecorder } from './application/usage-recorder';
import { UsageStore } from './ports/usage-store';

@Module({
  imports: [AuthModule],
  controllers: [UsageController],
  providers: [UsageRecorder, UsagePruner, { provide: UsageStore, useClass: TypeOrmUsageStore }, { provide: APP_INTERCEPTOR, useClass: UsageContextInterceptor }],
  exports: [UsageRecorder],
})
export class UsageModule {}
