import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { UploadsCoreModule } from '../uploads/uploads-core.module';
import { WorkerGatewayModule } from '../worker-gateway/worker-gateway.module';
import { configureProcessJobProcessor, ProcessJobProcessor } from './adapters/bullmq/process-job.processor';
import { ProcessJobHandler } from './application/process-job.handler';
import { JobsModule } from './jobs.module';
import { ChunkedJobHandler } from './application/chunked-job.handler';
import { BullMqChunkDispatcher } from './adapters/bullmq/bullmq.chunk-dispatcher';
import { EngineChunkJoiner } from './adapters/engine/engine.chunk-joiner';
import { ChunkDispatcher } from './ports/chunk-dispatcher';
import { ChunkJoiner } from './ports/chunk-joiner';

/** The worker role: consumes the jobs queue and runs each job (or each chunk of a long one) through the WorkerGateway. */
@Module({})
export class JobsWorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    configureProcessJobProcessor(config);
    return {
      module: JobsWorkerModule,
      imports: [JobsModule, UploadsCoreModule, WorkerGatewayModule],
      providers: [
        ProcessJobHandler,
        ChunkedJobHandler,
        ProcessJobProcessor,
        { provide: ChunkDispatcher, useClass: BullMqChunkDispatcher },
        { provide: ChunkJoiner, useClass: EngineChunkJoiner },
      ],
    };
  }
}
