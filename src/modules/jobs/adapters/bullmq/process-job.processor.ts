import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, OnApplicationBootstrap } from '@nestjs/common';
import { Job as QueueJob } from 'bullmq';
import { APP_CONFIG, AppConfig } from '../../../../config/app-config';
import { JOBS_QUEUE } from '../../../../infrastructure/queue/queue-connection';
import { ProcessJobHandler } from '../../application/process-job.handler';
import { ProcessJobMessage } from './bullmq.job-dispatcher';

/** The worker side of the jobs queue: each message runs ProcessJobHandler. */
@Processor(JOBS_QUEUE)
export class ProcessJobProcessor extends WorkerHost implements OnApplicationBootstrap {
  constructor(
    private readonly handler: ProcessJobHandler,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.env.WORKER_CONCURRENCY;
  }

  async process(message: QueueJob<ProcessJobMessage>): Promise<void> {
    await this.handler.handle(message.data.jobId);
  }
}
