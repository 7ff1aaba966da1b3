import { spawnSync } from 'node:child_process';
import { ensureBuilt, freshEnv, ROOT } from '../support/processes';

/** Runs a compiled entry point with `env` and returns how it ended (an invalid configuration ends it at once). */
function start(entry: string, env: Record<string, string>): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, [entry], { cwd: ROOT, env: freshEnv(env), encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, stderr: result.stderr };
}

/** The one configuration at the real entry points: an invalid start names every bad variable and exits 1. */
describe('an invalid configuration stops the start, naming every bad variable', () => {
  beforeAll(() => ensureBuilt());

  it('the API (npm start)', () => {
    const { status, stderr } = start('dist/src/main.js', { PORT: 'abc', WORKER_CONCURRENCY: '0', STORAGE: 's3' });
    expect(status).toBe(1);
    expect(stderr).toMatch(/^Backdrop could not start: Invalid configuration: /);
    for (const variable of ['PORT', 'WORKER_CONCURRENCY', 'S3_BUCKET']) expect(stderr).toContain(`${variable}: `);
  });

  it('the worker server (npm run worker:serve), through the same schema', () => {
    const { status, stderr } = start('dist/src/worker/main.js', { WORKER_PORT: '70000', WORKER_QUEUE_SIZE: 'many', MAX_UPLOAD_BYTES: '-1' });
    expect(status).toBe(1);
    expect(stderr).toMatch(/^Backdrop worker could not start: Invalid configuration: /);
    for (const variable of ['WORKER_PORT', 'WORKER_QUEUE_SIZE', 'MAX_UPLOAD_BYTES', 'WORKER_API_KEY']) expect(stderr).toContain(`${variable}: `);
  });
});
