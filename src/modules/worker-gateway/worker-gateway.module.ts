import { Module, OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { EngineProcessPool } from '../../engine/runner/engine-process-pool';
import { ObjectStorage } from '../storage/ports/object-storage';
import { LocalWorkerGateway } from './adapters/local.worker-gateway';
import { WorkerGateway } from './ports/worker-gateway';

/** The WorkerGateway chosen by configuration: the local engine (default). */
@Module({
  providers: [
    {
      provide: WorkerGateway,
      inject: [ObjectStorage, APP_CONFIG],
      useFactory: (storage: ObjectStorage, config: AppConfig) =>
        new LocalWorkerGateway(storage, () => new EngineProcessPool({ concurrency: config.env.WORKER_CONCURRENCY, cacheDir: config.modelCacheDir })),
    },
  ],
  exports: [WorkerGateway],
})
export class WorkerGatewayModule implements OnApplicationShutdown {
  constructor(private readonly moduleRef: ModuleRef) {}

  async onApplicationShutdown(): Promise<void> {
    const gateway = this.moduleRef.get(WorkerGateway, { strict: false });
    if (gateway instanceof LocalWorkerGateway) await gateway.close();
  }
}
