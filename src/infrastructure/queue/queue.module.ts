import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { bullRootOptions, JOBS_FLOW_PRODUCER, JOBS_QUEUE, MAINTENANCE_QUEUE, WEBHOOKS_QUEUE } from './queue-connection';

@Global()
@Module({})
export class QueueModule {
  static forRoot(config: AppConfig, databaseUrl: string): DynamicModule {
    const queue = BullModule.registerQueue({ name: JOBS_QUEUE }, { name: WEBHOOKS_QUEUE }, { name: MAINTENANCE_QUEUE });
    const flows = BullModule.registerFlowProducer({ name: JOBS_FLOW_PRODUCER });
    return {
      module: QueueModule,
      imports: [BullModule.forRoot(bullRootOptions(config, databaseUrl)), queue, flows],
      exports: [queue, flows],
    };
  }
}
