import { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import TestAgent from 'supertest/lib/agent';
import { AppModule } from '../../../src/app.module';
import { loadConfig } from '../../../src/config/app-config';
import { backdropHttpAdapter, configureHttp } from '../../../src/create-app';
import { migrate } from '../../../src/composition/data-source';
import { loadInstanceSecrets } from '../../../src/infrastructure/secrets/instance-secrets';
import { ApiKeysService } from '../../../src/modules/auth/application/api-keys.service';
import { ObjectStorage } from '../../../src/modules/storage/ports/object-storage';
import { WorkerGateway } from '../../../src/modules/worker-gateway/ports/worker-gateway';
import { FakeWorkerGateway } from '../../support/fake-worker-gateway';
import { ADMIN_TOKEN } from '../../support/test-app';
import { createTestDatabase } from '../../support/test-database';

export interface ClusterNode {
  app: NestExpressApplication;
  http: TestAgent;
  baseUrl: string;
}

export interface AppCluster {
  nodes: ClusterNode[];
  databaseUrl: string;
  createKey(credits?: number): Promise<string>;
  close(): Promise<void>;
}

/**
 * Several API processes' worth of the real application (each its own Nest app and HTTP port) over ONE
 * Postgres database, one data directory and one queue namespace: what two replicas behind a load
 * balancer share. ROLE=api unless `env` says otherwise.
 */
export async function startAppCluster(size: number, env: Record<string, string> = {}): Promise<AppCluster> {
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'backdrop-cluster-'));
  const config = loadConfig({
    DATABASE_URL: database.url,
    ADMIN_TOKEN,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    ROLE: 'api',
    QUEUE_NAMESPACE: `q_${path.basename(dataDir).replace(/[^A-Za-z0-9]/g, '')}`,
    ...env,
  });
  const migrations = await migrate(database.url);
  const secrets = await loadInstanceSecrets(migrations, config);
  await migrations.destroy();
  const nodes: ClusterNode[] = [];
  for (let i = 0; i < size; i += 1) {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot({ config, databaseUrl: database.url, secrets })] })
      .overrideProvider(WorkerGateway)
      .useFactory({ factory: (storage: ObjectStorage) => new FakeWorkerGateway(storage), inject: [ObjectStorage] })
      .compile();
    const app = moduleRef.createNestApplication<NestExpressApplication>(backdropHttpAdapter(), { bodyParser: false, logger: ['error'] });
    configureHttp(app, config.env.JSON_BODY_LIMIT);
    await app.listen(0, '127.0.0.1');
    const baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    nodes.push({ app, http: request(baseUrl), baseUrl });
  }
  const keys = nodes[0].app.get(ApiKeysService);
  return {
    nodes,
    databaseUrl: database.url,
    createKey: async (credits = 1000) => (await keys.create('cluster-client', null, credits)).apiKey,
    close: async () => {
      for (const node of nodes) await node.app.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
