/**
 * A Backdrop deployment of compiled processes for bench:scale: one API process and N worker
 * processes (ROLE=worker) sharing a fresh database, one Redis queue namespace and one storage
 * directory, as `docker compose up --scale worker=N` runs them.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';

/** the repository (this file runs compiled, from dist/bench/scale) */
const ROOT = path.resolve(__dirname, '../../..');
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ADMIN_TOKEN = 'bench-scale-admin-token-0123456789';

interface Proc {
  child: ChildProcess;
  output: () => string;
}

function start(env: Record<string, string>, ready: RegExp): Promise<Proc> {
  const child = spawn(process.execPath, ['dist/src/main.js'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + 120000;
    const poll = (): void => {
      if (ready.test(output)) return resolve({ child, output: () => output });
      if (child.exitCode !== null || Date.now() > deadline) return reject(new Error(`process did not start:\n${output}`));
      setTimeout(poll, 100);
    };
    poll();
  });
}

function stop(proc: Proc): Promise<void> {
  if (proc.child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    proc.child.once('exit', () => resolve());
    proc.child.kill('SIGTERM');
    setTimeout(() => proc.child.exitCode === null && proc.child.kill('SIGKILL'), 15000).unref();
  });
}

export class Deployment {
  private readonly dataDir = mkdtempSync(path.join(tmpdir(), 'bench-scale-'));
  private readonly database = `bench_scale_${randomBytes(5).toString('hex')}`;
  private readonly port = 20000 + Math.floor(Math.random() * 10000);
  private api?: Proc;
  private workers: Proc[] = [];
  private key = '';

  private get databaseUrl(): string {
    const url = new URL(SERVER_URL);
    url.pathname = `/${this.database}`;
    return url.toString();
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  private env(extra: Record<string, string>): Record<string, string> {
    return {
      DATABASE_URL: this.databaseUrl,
      REDIS_URL,
      QUEUE_NAMESPACE: this.database,
      ADMIN_TOKEN,
      DATA_DIR: this.dataDir,
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: this.url,
      MODEL_CACHE_DIR: path.join(ROOT, '.cache', 'models'),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '100000',
      RATE_LIMIT_STARTS_PER_MINUTE: '100000',
      ...extra,
    };
  }

  async startApi(): Promise<void> {
    const admin = new Client({ connectionString: SERVER_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${this.database}`);
    await admin.end();
    this.api = await start(this.env({ ROLE: 'api', PORT: String(this.port) }), /Backdrop is running at/);
    const res = await fetch(`${this.url}/v1/admin/keys`, { method: 'POST', headers: { 'X-Admin-Token': ADMIN_TOKEN, 'Content-Type': 'application/json' }, body: JSON.stringify({ client_id: 'bench-scale', credits: 1_000_000 }) });
    this.key = ((await res.json()) as { api_key: string }).api_key;
  }

  /** Replaces the running workers with `count` new worker processes configured by `env`. */
  async startWorkers(count: number, env: Record<string, string>): Promise<void> {
    await Promise.all(this.workers.map(stop));
    this.workers = await Promise.all(
      Array.from({ length: count }, () => start(this.env({ ROLE: 'worker', PORT: String(20000 + Math.floor(Math.random() * 10000)), WORKER_CONCURRENCY: '1', ...env }), /Backdrop worker started/)),
    );
  }

  async upload(file: string): Promise<string> {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(file)], { type: 'video/mp4' }), path.basename(file));
    const res = await fetch(`${this.url}/v1/uploads`, { method: 'POST', headers: { 'X-Api-Key': this.key }, body: form });
    const body = (await res.json()) as { video_url?: string; error?: { message: string } };
    if (!body.video_url) throw new Error(`upload failed: ${body.error?.message}`);
    return body.video_url;
  }

  /** Starts a job and waits for its end; the wall time runs from the POST to the completed status. */
  async runJob(request: object): Promise<{ seconds: number; job: Record<string, unknown>; output: Buffer }> {
    const started = performance.now();
    const res = await fetch(`${this.url}/v1/jobs`, { method: 'POST', headers: { 'X-Api-Key': this.key, 'Content-Type': 'application/json' }, body: JSON.stringify(request) });
    const created = (await res.json()) as { id?: string; error?: { message: string } };
    if (!created.id) throw new Error(`job refused: ${created.error?.message}`);
    for (;;) {
      const job = (await (await fetch(`${this.url}/v1/jobs/${created.id}`, { headers: { 'X-Api-Key': this.key } })).json()) as Record<string, unknown>;
      if (job.status === 'completed') {
        const seconds = (performance.now() - started) / 1000;
        const output = Buffer.from(await (await fetch(String(job.output_url), { headers: { 'X-Api-Key': this.key } })).arrayBuffer());
        return { seconds, job, output };
      }
      if (job.status === 'failed') throw new Error(`job failed: ${JSON.stringify(job.error ?? job)}\n${this.workers.map((w) => w.output()).join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.workers, ...(this.api ? [this.api] : [])].map(stop));
    const admin = new Client({ connectionString: SERVER_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${this.database} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
