import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { UploadsCoreModule } from '../uploads/uploads-core.module';
import { WorkerGatewayModule } from '../worker-gateway/worker-gateway.module';
import { configureProcessJobProcessor, ProcessJobProcessor } from './adapters/bullmq/process-job.processor';
import { ProcessJobHandler } from './application/process-job.handler';
import { JobsModule } from './jobs.module';

/** The worker role: consumes the jobs queue and runs each job through the WorkerGateway. */
@Module({})
export class JobsWorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    configureProcessJobProcessor(config);
    return {
      module: JobsWorkerModule,
      imports: [JobsModule, UploadsCoreModule, WorkerGatewayModule],
      providers: [ProcessJobHandler, ProcessJobProcessor],
    };
  }
}
