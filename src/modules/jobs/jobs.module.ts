import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { UploadsCoreModule } from '../uploads/uploads-core.module';
import { BullMqJobDispatcher } from './adapters/bullmq/bullmq.job-dispatcher';
import { JobPresenter } from './application/job.presenter';
import { JobLifecycle } from './application/job-lifecycle';
import { JobDispatchRelay } from './application/job-dispatch-relay';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { JobsController } from './adapters/http/jobs.controller';
import { LegacyJobsController } from './adapters/http/legacy-jobs.controller';
import { JobRecord } from './adapters/typeorm/job.record';
import { TypeOrmJobRepository } from './adapters/typeorm/typeorm.job.repository';
import { JobsService } from './application/jobs.service';
import { JobDispatcher } from './ports/job-dispatcher';
import { JobRepository } from './ports/job.repository';

/** The jobs API: create, start, read, list, legacy routes. */
@Module({
  imports: [AuthModule, UploadsCoreModule, WebhooksModule, TypeOrmModule.forFeature([JobRecord])],
  controllers: [JobsController, LegacyJobsController],
  providers: [
    JobsService,
    JobPresenter,
    JobLifecycle,
    JobDispatchRelay,
    { provide: JobRepository, useClass: TypeOrmJobRepository },
    { provide: JobDispatcher, useClass: BullMqJobDispatcher },
  ],
  exports: [JobRepository, JobLifecycle],
})
export class JobsModule {}
