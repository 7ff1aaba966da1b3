import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, OnApplicationBootstrap } from '@nestjs/common';
import { Queue } from 'bullmq';
import { APP_CONFIG, AppConfig } from '../../../../config/app-config';
import { MAINTENANCE_QUEUE } from '../../../../infrastructure/queue/queue-connection';
import { stalledJobDetection } from '../../../../infrastructure/queue/stalled-job-detection';
import { RetentionRun, RetentionService } from '../../application/retention.service';

/** Runs retention on a BullMQ schedule: one scheduler for the whole deployment, whatever the number of workers. */
@Processor(MAINTENANCE_QUEUE)
export class RetentionProcessor extends WorkerHost implements OnApplicationBootstrap {
  constructor(
    private readonly retention: RetentionService,
    @InjectQueue(MAINTENANCE_QUEUE) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    // the runs' records are kept a hundred deep (failed ones five hundred): they piled up for good, one an interval
    await this.queue.upsertJobScheduler('retention', { every: this.config.env.RETENTION_INTERVAL_MS }, { name: 'retention', opts: { removeOnComplete: { count: 100 }, removeOnFail: { count: 500 } } });
  }

  async process(): Promise<RetentionRun> {
    return this.retention.purge();
  }
}

/** Worker options come from validated configuration, applied when the module is built. */
export function configureRetentionProcessor(config: AppConfig): void {
  Processor(MAINTENANCE_QUEUE, stalledJobDetection(config, 1))(RetentionProcessor);
}
