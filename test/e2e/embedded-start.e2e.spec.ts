import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MEDIA_DIR } from '../support/test-app';
import { ensureBuilt, freshEnv, randomPort, RunningProcess, ROOT, SHARED_MODEL_CACHE, startProcess } from '../support/processes';

interface JobView {
  id: string;
  status: string;
  output_url: string | null;
  duration_seconds: number;
  progress: number;
  model: string;
  notes: string[];
}

/**
 * `npm start` on a fresh machine: no DATABASE_URL, no Redis. The compiled server starts the embedded
 * Postgres, queues on it, prints a key, and the README's curl sequence works with the real engine.
 */
describe('npm start with the embedded default', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'backdrop-start-'));
  const port = randomPort();
  const env = freshEnv({ DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(randomPort()), MODEL_CACHE_DIR: SHARED_MODEL_CACHE });
  const base = `http://localhost:${port}`;
  let server: RunningProcess;
  let key: string;

  beforeAll(async () => {
    ensureBuilt();
    server = startProcess(['dist/src/main.js'], env);
    [, key] = await server.waitFor(/Development API key \(shown once\): (bd_live_\w{32})/, 120000);
  }, 180000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const api = (route: string, init: RequestInit = {}) => fetch(`${base}${route}`, { ...init, headers: { 'X-Api-Key': key, ...(init.body && typeof init.body === 'string' ? { 'Content-Type': 'application/json' } : {}), ...init.headers } });

  const upload = async (file: string): Promise<string> => {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(path.join(MEDIA_DIR, file))], { type: 'video/mp4' }), file);
    const uploaded = (await (await api('/v1/uploads', { method: 'POST', body: form })).json()) as { success: boolean; content_type: string; video_url: string };
    expect(uploaded).toMatchObject({ success: true, content_type: 'video/mp4' });
    return uploaded.video_url;
  };

  /** polls the job until it is completed or failed */
  const settled = async (job: JobView): Promise<JobView> => {
    for (let polls = 0; polls < 240 && !['completed', 'failed'].includes(job.status); polls += 1) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      job = (await (await api(`/v1/jobs/${job.id}`)).json()) as JobView;
    }
    return job;
  };

  it('prints an admin token and a ready-to-paste curl example', () => {
    expect(server.output()).toMatch(/Admin token \(shown once.*\): adm_[0-9a-f]{48}/);
    expect(server.output()).toContain(`curl -s -H "X-Api-Key: $BACKDROP_KEY" -F file=@`);
    expect(readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim()).toMatch(/^adm_/);
    // every temporary file of the server under a directory of its own, which a later start removes once the server is gone
    expect(existsSync(path.join(tmpdir(), `backdrop-process-${server.child.pid}`))).toBe(true);
  });

  it('runs the README sequence: upload, create a draft, start it, poll to completion, list, download', async () => {
    const videoUrl = await upload('portrait-pan.mp4');
    const created = (await (await api('/v1/jobs', { method: 'POST', body: JSON.stringify({ video_url: videoUrl, model: 'light', auto_start: false }) })).json()) as { id: string; status: string };
    expect(created.status).toBe('created');
    const started = (await (await api(`/v1/jobs/${created.id}/start`, { method: 'POST', body: JSON.stringify({ output_format: 'webm', preview_duration: 1 }) })).json()) as { status: string; job: JobView };
    expect(['pending', 'processing']).toContain(started.status);

    const job = await settled(started.job);
    expect(job).toMatchObject({ status: 'completed', progress: 100 });
    expect(job.duration_seconds).toBeCloseTo(1, 1);

    const list = (await (await api('/v1/jobs?limit=5')).json()) as { items: Array<{ id: string }> };
    expect(list.items.map((item: { id: string }) => item.id)).toContain(created.id);

    const output = Buffer.from(await (await fetch(job.output_url!)).arrayBuffer());
    expect(output.readUInt32BE(0)).toBe(0x1a45dfa3); // EBML: a WebM file
  }, 180000);

  it('the admin CLI works beside the running server, on the same embedded database', () => {
    const listed = JSON.parse(execFileSync(process.execPath, ['dist/src/cli/admin.js', 'keys:list'], { cwd: ROOT, env, encoding: 'utf8' }));
    expect(listed).toEqual([expect.objectContaining({ client_id: 'development', enabled: true })]);
    const created = JSON.parse(execFileSync(process.execPath, ['dist/src/cli/admin.js', 'keys:create', '--client-id', 'acme', '--credits', '1000'], { cwd: ROOT, env, encoding: 'utf8' }));
    expect(created).toMatchObject({ client_id: 'acme', credits: 1000 });
    expect(created.api_key).toMatch(/^bd_live_/);
    const admin = (...args: string[]) => JSON.parse(execFileSync(process.execPath, ['dist/src/cli/admin.js', ...args], { cwd: ROOT, env, encoding: 'utf8' }));
    expect(admin('credits:grant', '--fingerprint', created.key_fingerprint, '--credits=-300')).toMatchObject({ credits: 700 });
    const secret = admin('webhooks:secret', '--fingerprint', created.key_fingerprint).webhook_secret;
    expect(secret).toMatch(/^whsec_/);
    expect(admin('webhooks:rotate', '--fingerprint', created.key_fingerprint).webhook_secret).not.toBe(secret);
  });

  it('stops cleanly on SIGTERM and restarts on the same data without printing a new key', async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
    server = startProcess(['dist/src/main.js'], env);
    await server.waitFor(/Backdrop is running at/, 120000);
    expect(server.output()).not.toContain('Development API key');
    const jobs = (await (await api('/v1/jobs')).json()) as { total: number };
    expect(jobs.total).toBe(1);
  }, 180000);

  it("a first start whose Postgres port is taken says why and names EMBEDDED_PG_PORT; the next start, on a free port, makes the database it did not (a TypeError, then 'database \"backdrop\" does not exist' for good), and a start that cannot listen makes no key it cannot show", async () => {
    const otherDir = mkdtempSync(path.join(tmpdir(), 'backdrop-start-busy-'));
    try {
      const otherEnv = { ...env, DATA_DIR: otherDir, PORT: String(randomPort()) };
      const refused = startProcess(['dist/src/main.js'], otherEnv); // env's EMBEDDED_PG_PORT: the running server's Postgres
      await expect(refused.waitFor(/never printed/, 120000)).rejects.toThrow(/process exited \(1\)/);
      expect(refused.output()).toMatch(/Backdrop could not start: the embedded Postgres in \S+ did not start on port \d+ \(EMBEDDED_PG_PORT\): .+/);
      const freePgPort = String(randomPort());
      const unheard = startProcess(['dist/src/main.js'], { ...otherEnv, EMBEDDED_PG_PORT: freePgPort, PORT: String(port) }); // the running server's port
      await expect(unheard.waitFor(/never printed/, 120000)).rejects.toThrow(/process exited \(1\)/);
      expect(unheard.output()).toMatch(/Backdrop could not start: port \d+ on \S+ is taken by another process: stop it, or set PORT to a free port/);
      // the key is made once the server listens: made before, it was never shown, and no later start made one
      const started = startProcess(['dist/src/main.js'], { ...otherEnv, EMBEDDED_PG_PORT: freePgPort });
      await started.waitFor(/Development API key \(shown once\): bd_live_\w{32}/, 120000);
      expect(await started.stop('SIGTERM')).toBe(0);
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  }, 300000);

  it('human on a video with no person (a car): completed by original, and the job says so', async () => {
    const created = (await (await api('/v1/jobs', { method: 'POST', body: JSON.stringify({ video_url: await upload('car-slide.mp4'), model: 'human', preview_duration: 0.5 }) })).json()) as JobView;
    expect(created.id).toMatch(/^job_/);
    const job = await settled(created);
    expect(job).toMatchObject({ status: 'completed', progress: 100, model: 'human' });
    expect(job.notes).toContain('human: no person in sight in the first half second, so original matted the video instead (it keeps any subject; light and human keep people only)');
  }, 180000);

  it('a second server on the same DATA_DIR is refused, naming the first (it shared its Postgres, which stopped under it); a server killed without stopping its Postgres leaves it to the next start, which takes it over and stops it (it was never stopped again)', async () => {
    const second = startProcess(['dist/src/main.js'], { ...env, PORT: String(randomPort()) });
    await expect(second.waitFor(/never printed/, 120000)).rejects.toThrow(/process exited \(1\)/);
    expect(second.output()).toContain(`another Backdrop server (pid ${server.child.pid}) runs on DATA_DIR ${dataDir}`);
    expect((await api('/v1/jobs')).status).toBe(200); // the first goes on

    await server.stop('SIGKILL');
    const postmaster = Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(isAlive(postmaster)).toBe(true);
    server = startProcess(['dist/src/main.js'], env);
    await server.waitFor(/Backdrop is running at/, 120000);
    expect(server.output()).toContain('Taking over the embedded Postgres');
    expect((await api('/v1/jobs')).status).toBe(200);
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(isAlive(postmaster)).toBe(false);
    expect(existsSync(path.join(dataDir, 'postgres-owner'))).toBe(false);
  }, 300000);
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
