import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { JobsController } from './adapters/http/jobs.controller';
import { LegacyJobsController } from './adapters/http/legacy-jobs.controller';
import { JobsModule } from './jobs.module';

/** The API role's job routes: create, start, cancel, read, list, and the legacy /api ones. */
@Module({ imports: [JobsModule, AuthModule], controllers: [JobsController, LegacyJobsController] })
export class JobsHttpModule {}
