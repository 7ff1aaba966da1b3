import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { UploadsCoreModule } from '../uploads/uploads-core.module';
import { BullMqJobDispatcher } from './adapters/bullmq/bullmq.job-dispatcher';
import { JobPresenter } from './application/job.presenter';
import { JobLifecycle } from './application/job-lifecycle';
import { JobDispatchRelay } from './application/job-dispatch-relay';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { JobRecord } from './adapters/typeorm/job.record';
import { TypeOrmJobRepository } from './adapters/typeorm/typeorm.job.repository';
import { JobsService } from './application/jobs.service';
import { JobDispatcher } from './ports/job-dispatcher';
import { JobRepository } from './ports/job.repository';

/** Jobs: their use cases and adapters, for the API and the workers alike (the routes are JobsHttpModule's). */
@Module({
  imports: [AuthModule, UploadsCoreModule, WebhooksModule, TypeOrmModule.forFeature([JobRecord])],
  providers: [
    JobsService,
    JobPresenter,
    JobLifecycle,
    JobDispatchRelay,
    { provide: JobRepository, useClass: TypeOrmJobRepository },
    { provide: JobDispatcher, useClass: BullMqJobDispatcher },
  ],
  exports: [JobRepository, JobLifecycle, JobsService, JobPresenter],
})
export class JobsModule {}
