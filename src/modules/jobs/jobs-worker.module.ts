import { Module } from '@nestjs/common';
import { UploadsCoreModule } from '../uploads/uploads-core.module';
import { WorkerGatewayModule } from '../worker-gateway/worker-gateway.module';
import { ProcessJobProcessor } from './adapters/bullmq/process-job.processor';
import { ProcessJobHandler } from './application/process-job.handler';
import { JobsModule } from './jobs.module';

/** The worker role: consumes the jobs queue and runs each job through the WorkerGateway. */
@Module({
  imports: [JobsModule, UploadsCoreModule, WorkerGatewayModule],
  providers: [ProcessJobHandler, ProcessJobProcessor],
})
export class JobsWorkerModule {}
