import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { isNativeError } from 'node:util/types';
import { Client } from 'pg';
import { ADMIN_TOKEN, MEDIA_DIR } from './test-app';
import { startWebhookReceiver, WebhookReceiver, WebhookReceiverOptions } from './webhook-receiver';
import { ensureBuilt, freshEnv, randomPort, RunningProcess, SHARED_MODEL_CACHE, startProcess } from './processes';

/** Every descendant of a process, deepest last (engine children and their ffmpeg included). */
function descendants(pid: number): number[] {
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).split('\n').map(Number).filter(Boolean);
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/** kill -9 of a machine's worth of processes: the process and everything it started. */
export function killHard(proc: RunningProcess): void {
  const pid = proc.child.pid!;
  let tree: number[] = [];
  try {
    tree = descendants(pid);
  } catch {
    tree = [];
  }
  for (const target of [pid, ...tree]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

export interface AppProcess extends RunningProcess {
  role: 'api' | 'worker' | 'all';
  port: number;
  url: string;
}

/** Backdrop processes (compiled, as deployed) sharing one database, one queue and one storage directory. */
export class Cluster {
  readonly dataDir = mkdtempSync(path.join(tmpdir(), 'backdrop-cluster-'));
  readonly processes: AppProcess[] = [];
  /** as in production, every process of a deployment knows the one public URL of the API */
  private readonly publicPort = randomPort();

  constructor(private readonly env: Record<string, string>) {
    ensureBuilt();
  }

  async start(role: 'api' | 'worker' | 'all', extra: Record<string, string> = {}): Promise<AppProcess> {
    const port = role !== 'worker' && !this.processes.some((proc) => proc.port === this.publicPort) ? this.publicPort : randomPort();
    const proc = startProcess(
      ['dist/src/main.js'],
      freshEnv({
        ROLE: role,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: this.dataDir,
        ADMIN_TOKEN,
        PUBLIC_BASE_URL: `http://127.0.0.1:${this.publicPort}`,
        MODEL_CACHE_DIR: SHARED_MODEL_CACHE,
        LOG_LEVEL: 'warn',
        QUEUE_STALLED_INTERVAL_MS: '1000',
        JOB_RELAY_INTERVAL_MS: '500',
        WEBHOOK_SWEEP_INTERVAL_MS: '500',
        WEBHOOK_RETRY_SCHEDULE_SECONDS: '0.5,0.5,0.5,1,2',
        RATE_LIMIT_PER_MINUTE: '100000',
        RATE_LIMIT_STARTS_PER_MINUTE: '100000',
        OUTBOUND_ALLOW_LIST: '127.0.0.1',
        ...this.env,
        ...extra,
      }),
    );
    await proc.waitFor(role === 'worker' ? /Backdrop worker started/ : /Backdrop is running at/, 120000);
    const app = Object.assign(proc, { role, port, url: `http://127.0.0.1:${port}` });
    this.processes.push(app);
    return app;
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.processes.map((proc) => proc.stop()));
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export async function createKey(api: AppProcess, credits: number): Promise<string> {
  const res = await fetch(`${api.url}/v1/admin/keys`, { method: 'POST', headers: { 'X-Admin-Token': ADMIN_TOKEN, 'Content-Type': 'application/json' }, body: JSON.stringify({ client_id: 'faults', credits }) });
  return ((await res.json()) as { api_key: string }).api_key;
}

export async function uploadClip(api: AppProcess, key: string): Promise<string> {
  const form = new FormData();
  const { readFileSync } = await import('node:fs');
  form.append('file', new Blob([readFileSync(path.join(MEDIA_DIR, 'portrait-pan.mp4'))], { type: 'video/mp4' }), 'portrait-pan.mp4');
  const res = await fetch(`${api.url}/v1/uploads`, { method: 'POST', headers: { 'X-Api-Key': key }, body: form });
  return ((await res.json()) as { video_url: string }).video_url;
}

export async function createJob(api: AppProcess, key: string, body: object): Promise<string> {
  const res = await fetch(`${api.url}/v1/jobs`, { method: 'POST', headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as { id?: string; error?: { message: string } };
  if (!json.id) throw new Error(`create failed: ${res.status} ${json.error?.message}`);
  return json.id;
}

export interface Tally {
  /** the database the outcome was read from, and the jobs it was read for */
  databaseUrl: string;
  jobIds: string[];
  jobs: number;
  completed: number;
  lost: number;
  doubleCharges: number;
  doubleCompletions: number;
  /** how many of the jobs are in each status: where the ones not completed stopped */
  statuses: Record<string, number>;
}

/** Reads the outcome from the database itself. */
export async function tally(databaseUrl: string, jobIds: string[]): Promise<Tally> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const statuses: Array<{ status: string }> = (await db.query(`SELECT status FROM jobs WHERE id = ANY($1)`, [jobIds])).rows;
    const charges = (await db.query(`SELECT job_id FROM credit_ledger WHERE kind = 'charge' AND job_id = ANY($1) GROUP BY job_id HAVING COUNT(*) > 1`, [jobIds])).rowCount ?? 0;
    const completions = (await db.query(`SELECT job_id FROM job_events WHERE kind = 'completed' AND job_id = ANY($1) GROUP BY job_id HAVING COUNT(*) > 1`, [jobIds])).rowCount ?? 0;
    const completed = statuses.filter((row) => row.status === 'completed').length;
    const byStatus: Record<string, number> = {};
    for (const { status } of statuses) byStatus[status] = (byStatus[status] ?? 0) + 1;
    return { databaseUrl, jobIds, jobs: jobIds.length, completed, lost: jobIds.length - completed, doubleCharges: charges, doubleCompletions: completions, statuses: byStatus };
  } finally {
    await db.end();
  }
}

/** The jobs' webhook deliveries the outbox has not marked sent, as "job event status after N attempts: last error" */
export async function unsentWebhooks(databaseUrl: string, jobIds: string[]): Promise<string[]> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const rows: Array<{ job_id: string; event: string; status: string; attempts: number; last_error: string | null }> = (
      await db.query(`SELECT job_id, event, status, attempts, last_error FROM webhook_deliveries WHERE job_id = ANY($1) AND status <> 'sent' ORDER BY job_id, event`, [jobIds])
    ).rows;
    return rows.map((row) => `${row.job_id} ${row.event} ${row.status} after ${row.attempts} attempts: ${row.last_error ?? 'no error'}`);
  } finally {
    await db.end();
  }
}

/** The jobs' outcome once all completed, or at the deadline; throws when the database could not be read by then. */
export async function waitForAll(databaseUrl: string, jobIds: string[], timeoutMs: number): Promise<Tally> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let unreadable: unknown;
    const now = await tally(databaseUrl, jobIds).catch((error: unknown) => {
      unreadable = error;
      return null;
    });
    if (now && now.completed === jobIds.length) return now;
    if (Date.now() > deadline) {
      if (now) return now;
      throw new Error(`the jobs' database could not be read at the end of ${timeoutMs} ms: ${String(unreadable)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export async function waitForStatus(databaseUrl: string, jobId: string, status: string, timeoutMs = 60000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    const rows = (await db.query(`SELECT status FROM jobs WHERE id = $1`, [jobId])).rows;
    await db.end();
    if (rows[0]?.status === status) return;
    if (Date.now() > deadline) throw new Error(`job ${jobId} did not reach ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A Redis of the test's own, with AOF on, that can be stopped and restarted on the same data. */
export function startRedis(dir: string, port: number): RunningProcess & { port: number } {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', '', '--maxmemory-policy', 'noeviction'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    port,
    output: () => output,
    waitFor: async (pattern) => {
      for (let i = 0; i < 200; i += 1) {
        const match = pattern.exec(output);
        if (match) return match;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`redis did not print ${pattern}`);
    },
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

export { randomPort };

export interface Deployment {
  cluster: Cluster;
  api: AppProcess;
  workers: AppProcess[];
  receiver: WebhookReceiver;
  key: string;
  videoUrl: string;
}

const OUTPUT_LINES_ON_FAILURE = 30;
/** a crash report (the stack, the error's fields, and an engine child's own report after it) runs longer */
const OUTPUT_LINES_OF_EXITED_PROCESS = 150;

/** a failure with what each process of the deployment last wrote (warnings and errors: LOG_LEVEL warn), and how a process that ended ended */
export function withProcessOutput(error: unknown, processes: readonly AppProcess[]): unknown {
  // not `instanceof Error`: fetch's errors come from Node's realm, not the test's
  if (!isNativeError(error)) return error;
  const outputs = processes.map((proc, index) => {
    const { exitCode, signalCode } = proc.child;
    const exited = exitCode !== null || signalCode !== null;
    const lines = proc.output().trimEnd().split('\n').slice(-(exited ? OUTPUT_LINES_OF_EXITED_PROCESS : OUTPUT_LINES_ON_FAILURE));
    const state = exited ? `exited (${signalCode ?? `code ${exitCode}`}) before the end of the test` : 'running';
    return `--- ${proc.role} process ${index + 1} (port ${proc.port}), ${state}, its last ${lines.length} lines:\n${lines.join('\n')}`;
  });
  error.message += `\n${outputs.join('\n')}`;
  return error;
}

/** An API, `workers` workers, a webhook receiver, a funded key and an uploaded clip; all stopped afterwards. */
export async function withDeployment(env: Record<string, string>, workers: number, use: (deployment: Deployment) => Promise<void>, receiverOptions: WebhookReceiverOptions = {}): Promise<void> {
  const cluster = new Cluster(env);
  const receiver = await startWebhookReceiver(receiverOptions);
  try {
    const api = await cluster.start('api');
    const started: AppProcess[] = [];
    for (let i = 0; i < workers; i += 1) started.push(await cluster.start('worker'));
    const key = await createKey(api, 1000);
    await use({ cluster, api, workers: started, receiver, key, videoUrl: await uploadClip(api, key) });
  } catch (error) {
    throw withProcessOutput(error, cluster.processes);
  } finally {
    await receiver.close();
    await cluster.stopAll();
  }
}
