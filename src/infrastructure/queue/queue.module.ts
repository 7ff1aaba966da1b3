import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AppConfig } from '../../config/app-config';
import { bullRootOptions, JOBS_FLOW_PRODUCER, JOBS_QUEUE, MAINTENANCE_QUEUE, WEBHOOKS_QUEUE } from './queue-connection';
import { QueueConnections } from './queue-connections';

@Global()
@Module({})
export class QueueModule {
  static forRoot(config: AppConfig, databaseUrl: string): DynamicModule {
    const queue = BullModule.registerQueue({ name: JOBS_QUEUE }, { name: WEBHOOKS_QUEUE }, { name: MAINTENANCE_QUEUE });
    const flows = BullModule.registerFlowProducer({ name: JOBS_FLOW_PRODUCER });
    return {
      module: QueueModule,
      imports: [BullModule.forRoot(bullRootOptions(config, databaseUrl)), queue, flows, DiscoveryModule],
      providers: [QueueConnections],
      exports: [queue, flows],
    };
  }
}
