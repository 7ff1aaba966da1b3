import { Module, OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { EngineProcessPool } from '../../engine/runner/engine-process-pool';
import { AddressPolicy } from '../../infrastructure/net/address-policy';
import { OutboundHttpClient } from '../../infrastructure/net/outbound-http.client';
import { INSTANCE_SECRETS, InstanceSecrets } from '../../infrastructure/secrets/instance-secrets';
import { ObjectStorage } from '../storage/ports/object-storage';
import { LocalWorkerGateway } from './adapters/local.worker-gateway';
import { NoWorkerGateway } from './adapters/none.worker-gateway';
import { CallbackSigner } from './adapters/remote-http/callback-signer';
import { RemoteHttpWorkerGateway } from './adapters/remote-http/remote-http.worker-gateway';
import { WorkerApiClient } from './adapters/remote-http/worker-api.client';
import { WorkerCallbackHub } from './adapters/remote-http/worker-callback-hub';
import { WorkerEndpoints } from './adapters/remote-http/worker-endpoints';
import { WorkerGateway } from './ports/worker-gateway';
import { RemoteRunRegistry } from './ports/remote-run-registry';
import { TypeOrmRemoteRunRegistry } from './adapters/typeorm/typeorm.remote-run-registry';

/**
 * Remote workers are the operator's own machines, often on private addresses: the gateway gets its own
 * SSRF-guarded client whose allow-list is exactly the hosts of WORKER_URLS. The shared client that
 * fetches users' URLs is not widened, so a video_url can never reach a worker.
 */
function remoteGateway(config: AppConfig, storage: ObjectStorage, signer: CallbackSigner, hub: WorkerCallbackHub, runs: RemoteRunRegistry): RemoteHttpWorkerGateway {
  const env = config.env;
  const hosts = env.WORKER_URLS.map((url) => new URL(url).hostname.replace(/^\[|\]$/g, ''));
  const client = new OutboundHttpClient(new AddressPolicy(hosts), { connectTimeoutMs: env.WORKER_REQUEST_TIMEOUT_MS });
  const api = new WorkerApiClient(client, {
    apiKey: env.WORKER_API_KEY ?? '',
    timeoutMs: env.WORKER_REQUEST_TIMEOUT_MS,
    attempts: env.WORKER_RETRY_ATTEMPTS,
    baseDelayMs: env.WORKER_RETRY_BASE_DELAY_MS,
  });
  const endpoints = new WorkerEndpoints(env.WORKER_URLS, env.WORKER_HEALTH_COOLDOWN_SECONDS * 1000);
  return new RemoteHttpWorkerGateway(api, endpoints, storage, signer, hub, runs, {
    pollIntervalMs: env.WORKER_POLL_INTERVAL_MS,
    jobTimeoutMs: env.WORKER_JOB_TIMEOUT_SECONDS * 1000,
    publicBaseUrl: config.publicBaseUrl,
    unreachableGraceMs: env.WORKER_UNREACHABLE_GRACE_SECONDS * 1000,
    runRetries: env.WORKER_RUN_RETRIES,
  });
}

/** The adapter WORKER_GATEWAY names: the local engine (default), remote RunPod-protocol workers, or none. */
export function createWorkerGateway(config: AppConfig, storage: ObjectStorage, signer: CallbackSigner, hub: WorkerCallbackHub, runs: RemoteRunRegistry): WorkerGateway {
  switch (config.env.WORKER_GATEWAY) {
    case 'remote':
      return remoteGateway(config, storage, signer, hub, runs);
    case 'none':
      return new NoWorkerGateway();
    case 'local':
      return new LocalWorkerGateway(storage, () => new EngineProcessPool({ concurrency: config.env.WORKER_CONCURRENCY, cacheDir: config.modelCacheDir, modelModule: config.env.ENGINE_MODEL_MODULE }), config.modelCacheDir);
  }
}

/** The WorkerGateway chosen by configuration, with what remote workers' callbacks need (signer, hub). */
@Module({
  providers: [
    { provide: WorkerCallbackHub, useFactory: () => new WorkerCallbackHub() },
    { provide: RemoteRunRegistry, useClass: TypeOrmRemoteRunRegistry },
    { provide: CallbackSigner, inject: [INSTANCE_SECRETS], useFactory: (secrets: InstanceSecrets) => new CallbackSigner(secrets.urlSigningSecret, secrets.previousUrlSigningSecrets) },
    {
      provide: WorkerGateway,
      inject: [APP_CONFIG, ObjectStorage, CallbackSigner, WorkerCallbackHub, RemoteRunRegistry],
      useFactory: createWorkerGateway,
    },
  ],
  exports: [WorkerGateway, WorkerCallbackHub, CallbackSigner],
})
export class WorkerGatewayModule implements OnApplicationShutdown {
  constructor(private readonly moduleRef: ModuleRef) {}

  async onApplicationShutdown(): Promise<void> {
    const gateway = this.moduleRef.get(WorkerGateway, { strict: false });
    if (gateway instanceof LocalWorkerGateway) await gateway.close();
  }
}
