/**
 * bench:queue — jobs per second through create -> dispatch -> worker -> completed, on BullMQ's Redis
 * and Postgres backends, with 1 and 4 concurrent workers. The worker gateway completes instantly, so
 * the figure is the service's own overhead (HTTP, Postgres transactions, the queue), not the engine's.
 */
import 'reflect-metadata';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import * as path from 'node:path';
import { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { AppModule } from '../../src/app.module';
import { loadConfig } from '../../src/config/app-config';
import { backdropHttpAdapter, configureHttp } from '../../src/create-app';
import { migrate } from '../../src/composition/data-source';
import { loadInstanceSecrets } from '../../src/infrastructure/secrets/instance-secrets';
import { ApiKeysService } from '../../src/modules/auth/application/api-keys.service';
import { WorkerGateway, WorkerOutcome } from '../../src/modules/worker-gateway/ports/worker-gateway';

const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const JOBS = Number(process.env.BENCH_JOBS ?? 200);
const CLIP = path.resolve(__dirname, '../../../../shared/media/portrait-pan.mp4');

/** Completes every job at once: what is measured is everything around the engine. */
class InstantWorkerGateway extends WorkerGateway {
  async process(): Promise<WorkerOutcome> {
    return { durationSeconds: 1, frames: 25, notes: [] };
  }
  async check(): Promise<string> {
    return 'ok';
  }
}

async function withDatabase<T>(use: (url: string) => Promise<T>): Promise<T> {
  const name = `bd_bench_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  try {
    return await use(url.toString());
  } finally {
    const cleanup = new Client({ connectionString: SERVER_URL });
    await cleanup.connect();
    await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await cleanup.end();
  }
}

async function measure(backend: 'redis' | 'postgres', workers: number): Promise<{ jobsPerSecond: number; seconds: number }> {
  return withDatabase(async (databaseUrl) => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'backdrop-bench-'));
    const config = loadConfig({
      DATABASE_URL: databaseUrl,
      ADMIN_TOKEN: 'bench-admin-token-0123456789',
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      WORKER_CONCURRENCY: String(workers),
      QUEUE_NAMESPACE: `bench_${randomBytes(4).toString('hex')}`,
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_STARTS_PER_MINUTE: '1000000',
      ...(backend === 'redis' ? { REDIS_URL } : {}),
    });
    const migrations = await migrate(databaseUrl);
    const secrets = await loadInstanceSecrets(migrations, config);
    await migrations.destroy();
    const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot({ config, databaseUrl, secrets })] })
      .overrideProvider(WorkerGateway)
      .useValue(new InstantWorkerGateway())
      .compile();
    const app = moduleRef.createNestApplication<NestExpressApplication>(backdropHttpAdapter(), { bodyParser: false, logger: ['error'] });
    configureHttp(app, config.env.JSON_BODY_LIMIT);
    await app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const key = (await app.get(ApiKeysService).create('bench', null, 10_000_000)).apiKey;
      const form = new FormData();
      form.append('file', new Blob([readFileSync(CLIP)], { type: 'video/mp4' }), 'clip.mp4');
      const upload = (await (await fetch(`${base}/v1/uploads`, { method: 'POST', headers: { 'X-Api-Key': key }, body: form })).json()) as { video_url: string };
      const body = JSON.stringify({ video_url: upload.video_url, model: 'light' });
      const started = process.hrtime.bigint();
      const inFlight = 16;
      let sent = 0;
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (sent < JOBS) {
            sent += 1;
            const res = await fetch(`${base}/v1/jobs`, { method: 'POST', headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' }, body });
            if (res.status !== 200) throw new Error(`create answered ${res.status}`);
          }
        }),
      );
      for (;;) {
        const [{ done }] = (await db.query(`SELECT COUNT(*)::int AS done FROM jobs WHERE status = 'completed'`)).rows;
        if (done >= JOBS) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      return { jobsPerSecond: JOBS / seconds, seconds };
    } finally {
      await db.end();
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}

async function main(): Promise<void> {
  console.log(`bench:queue — ${JOBS} jobs each: HTTP create (16 in flight) -> dispatch -> worker (instant gateway) -> completed`);
  console.log(`machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}`);
  const rows: Array<{ backend: string; workers: number; jobsPerSecond: number; seconds: number }> = [];
  for (const workers of [1, 4]) {
    for (const backend of ['redis', 'postgres'] as const) rows.push({ backend, workers, ...(await measure(backend, workers)) });
  }
  const baseline = rows[0].jobsPerSecond;
  console.log('\nworkers | backend  | jobs/s | seconds | ratio vs Redis x1');
  for (const row of rows) {
    console.log(`${String(row.workers).padStart(7)} | ${row.backend.padEnd(8)} | ${row.jobsPerSecond.toFixed(1).padStart(6)} | ${row.seconds.toFixed(2).padStart(7)} | ${(row.jobsPerSecond / baseline).toFixed(2)}`);
  }
  process.exit(0);
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
