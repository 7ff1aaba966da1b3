import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { UploadsCoreModule } from '../uploads/uploads-core.module';
import { BullMqJobDispatcher } from './adapters/bullmq/bullmq.job-dispatcher';
import { JobPresenter } from './adapters/http/job.presenter';
import { JobsController } from './adapters/http/jobs.controller';
import { LegacyJobsController } from './adapters/http/legacy-jobs.controller';
import { JobRecord } from './adapters/typeorm/job.record';
import { TypeOrmJobRepository } from './adapters/typeorm/typeorm.job.repository';
import { JobsService } from './application/jobs.service';
import { JobDispatcher } from './ports/job-dispatcher';
import { JobRepository } from './ports/job.repository';

/** The jobs API: create, start, read, list, legacy routes. */
@Module({
  imports: [AuthModule, UploadsCoreModule, TypeOrmModule.forFeature([JobRecord])],
  controllers: [JobsController, LegacyJobsController],
  providers: [
    JobsService,
    JobPresenter,
    { provide: JobRepository, useClass: TypeOrmJobRepository },
    { provide: JobDispatcher, useClass: BullMqJobDispatcher },
  ],
  exports: [JobRepository],
})
export class JobsModule {}
