import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MIGRATIONS } from '../../src/infrastructure/database/migrations';
import { ensureBuilt, ROOT } from '../support/processes';
import { createTestDatabase } from '../support/test-database';
import { MEDIA_DIR } from '../support/test-app';
import { RunningServer, startEmbeddedServer } from '../browser/support/server';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const FFPROBE: string = require('@ffprobe-installer/ffprobe').path;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const FFMPEG: string = require('@ffmpeg-installer/ffmpeg').path;
const PORTRAIT = path.join(MEDIA_DIR, 'portrait-pan.mp4');

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npx backdrop ...` as a script runs it: stdout and stderr are pipes, not a terminal. */
function backdrop(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'bin/backdrop.js'), ...args], { cwd: ROOT, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr });
    });
  });
}

function probe(file: string): { codec_name: string; width: number; height: number; tags?: Record<string, string>; duration: number } {
  const output = JSON.parse(execFileSync(FFPROBE, ['-v', 'error', '-show_entries', 'stream=codec_name,width,height:stream_tags:format=duration', '-of', 'json', file], { encoding: 'utf8' }));
  return { ...output.streams[0], duration: Number(output.format.duration) };
}

/** The first frame as RGBA (VP9 alpha decodes only with libvpx-vp9 named before -i). */
function firstFrameRgba(file: string, decoder: string[]): Buffer {
  return execFileSync(FFMPEG, ['-v', 'error', ...decoder, '-i', file, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgba', '-'], { maxBuffer: 64 * 1024 * 1024 });
}

function share(pixels: Buffer, test: (r: number, g: number, b: number, a: number) => boolean): number {
  let count = 0;
  for (let index = 0; index < pixels.length; index += 4) if (test(pixels[index], pixels[index + 1], pixels[index + 2], pixels[index + 3])) count += 1;
  return count / (pixels.length / 4);
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('backdrop CLI against the embedded server', () => {
  const workDir = mkdtempSync(path.join(tmpdir(), 'backdrop-cli-out-'));
  let server: RunningServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startEmbeddedServer();
    env = { BACKDROP_URL: server.base, BACKDROP_KEY: server.key };
  }, 150000);
  afterAll(async () => {
    await server?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('remove: a transparent WebM (VP9 with alpha) from portrait-pan.mp4, progress as plain lines on stderr', async () => {
    const output = path.join(workDir, 'out.webm');
    const run = await backdrop(['remove', PORTRAIT, '-o', output, '--model', 'light', '--bg', 'transparent', '--preview', '1'], env);
    expect(run).toMatchObject({ code: 0, stdout: `${output}\n` });
    expect(run.stderr).toMatch(/^Job job_\w+ started$/m);
    expect(run.stderr).toMatch(/^completed 100%$/m);
    expect(run.stderr).not.toContain('\r'); // not a terminal: no redrawn bar

    const stream = probe(output);
    expect(stream).toMatchObject({ codec_name: 'vp9', width: 640, height: 360 });
    expect(stream.tags?.alpha_mode ?? stream.tags?.ALPHA_MODE).toBe('1'); // the remuxed file names the tag in capitals
    expect(stream.duration).toBeCloseTo(1, 0);
    const pixels = firstFrameRgba(output, ['-c:v', 'libvpx-vp9']);
    expect(pixels.length).toBe(640 * 360 * 4);
    expect(share(pixels, (_r, _g, _b, a) => a < 16)).toBeGreaterThan(0.3); // the background is gone
    expect(share(pixels, (_r, _g, _b, a) => a > 240)).toBeGreaterThan(0.02); // the person is kept
  }, 120000);

  it("remove --bg '#00ff00' -o out.mp4: the format follows the extension, the background is green", async () => {
    const output = path.join(workDir, 'green.mp4');
    const run = await backdrop(['remove', PORTRAIT, '-o', output, '--model', 'light', '--bg', '#00ff00', '--preview', '0.5'], env);
    expect(run).toMatchObject({ code: 0, stdout: `${output}\n` });
    expect(probe(output)).toMatchObject({ codec_name: 'h264', width: 640, height: 360 });
    const pixels = firstFrameRgba(output, []);
    expect(share(pixels, (r, g, b) => g > 200 && r < 60 && b < 60)).toBeGreaterThan(0.3);
  }, 120000);

  it('jobs and usage print what the API holds', async () => {
    const jobs = await backdrop(['jobs', '--status', 'completed', '--limit', '5'], env);
    expect(jobs.code).toBe(0);
    expect(jobs.stdout).toMatch(/^ID\s+STATUS\s+MODEL\s+FORMAT/);
    expect(jobs.stdout.match(/^job_\w+\s+completed\s+light/gm)).toHaveLength(2);
    expect(jobs.stdout).toContain('1-2 of 2 jobs');
    const listed = JSON.parse((await backdrop(['jobs', '--json', '--limit', '1'], env)).stdout) as { items: unknown[]; total: number };
    expect(listed).toMatchObject({ total: 2, limit: 1 });

    const summary = await fetch(`${server.base}/v1/usage/summary?days=3`, { headers: { 'X-Api-Key': server.key } });
    const usage = await backdrop(['usage', '--days', '3'], env);
    if (summary.ok) {
      expect(usage.code).toBe(0);
      expect(usage.stdout).toMatch(/^DATE\s+CREDITS\s+JOBS/);
      expect(usage.stdout).toMatch(/Last 3 days: \d+ credits, 2 jobs \(2 completed, 0 failed\)/);
    } else {
      const body = (await summary.json()) as { error: { message: string } };
      expect(usage.code).toBe(3);
      expect(usage.stderr).toContain(`backdrop: ${body.error.message} (HTTP ${summary.status}`);
    }
  });

  it('exit codes: 3 for a bad key, 2 for a missing file or bad arguments, 4 when the server is unreachable', async () => {
    const badKey = await backdrop(['remove', PORTRAIT, '-o', path.join(workDir, 'x.webm')], { ...env, BACKDROP_KEY: 'bd_live_00000000000000000000000000000000' });
    expect(badKey.code).toBe(3);
    expect(badKey.stderr).toMatch(/backdrop: Invalid API key \(HTTP 401 invalid_api_key, request req_\w+\)/);

    const missing = await backdrop(['remove', path.join(workDir, 'nope.mp4'), '-o', path.join(workDir, 'y.webm')], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`No such file: ${path.join(workDir, 'nope.mp4')}`);
    expect(() => statSync(path.join(workDir, 'y.webm'))).toThrow();

    expect((await backdrop(['remove', PORTRAIT, '--bg', 'purple'], env)).code).toBe(2);
    expect((await backdrop(['jobs', '--limit', '500'], env)).code).toBe(2);
    expect((await backdrop(['frobnicate'], env)).code).toBe(2);
    expect((await backdrop(['jobs'], { BACKDROP_URL: server.base, BACKDROP_KEY: '' })).code).toBe(2);

    const offline = await backdrop(['jobs', '--url', `http://127.0.0.1:${await closedPort()}`], env);
    expect(offline.code).toBe(4);
    expect(offline.stderr).toMatch(/Cannot reach http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
  }, 60000);

  it('sends the key nowhere a redirect points, refuses a --url with a password without echoing it, and ends with 3 on a body that is not JSON', async () => {
    const seen: Array<string | undefined> = [];
    const elsewhere = createHttpServer((req, res) => {
      seen.push(req.headers['x-api-key'] as string | undefined);
      res.setHeader('Content-Type', 'text/html');
      res.end('<html>a proxy page</html>');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    const elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as { port: number }).port}`;
    const redirecting = createHttpServer((req, res) => {
      res.statusCode = 307;
      res.setHeader('Location', `${elsewhereUrl}${req.url}`);
      res.end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    try {
      const redirected = await backdrop(['jobs', '--url', `http://127.0.0.1:${(redirecting.address() as { port: number }).port}`], env);
      expect(redirected.code).toBe(3);
      expect(redirected.stderr).toContain(`redirected to ${elsewhereUrl}`);
      expect(seen).toEqual([]);

      const notJson = await backdrop(['jobs', '--url', elsewhereUrl], env);
      expect(notJson.code).toBe(3);
      expect(notJson.stderr).toMatch(/something other than JSON/);
      expect(notJson.stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace

      const withPassword = await backdrop(['jobs', '--url', 'http://admin:hunter2@127.0.0.1:9'], env);
      expect(withPassword.code).toBe(2);
      expect(withPassword.stderr).not.toContain('hunter2');
    } finally {
      redirecting.close();
      elsewhere.close();
    }
  });

  it('--help documents the commands and the exit codes', async () => {
    const help = await backdrop(['--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('backdrop remove <input>');
    for (const line of ['0  success', '1  the job failed', '2  usage error', '3  the API refused', '4  network error']) expect(help.stdout).toContain(line);
  });
});

/**
 * The CLI against a scripted server (no engine): what it does when the server fails for a moment,
 * refuses a job for credit, cuts a download, or sits under a path; and the output paths it refuses
 * before anything is uploaded.
 */
describe('backdrop CLI against a scripted server', () => {
  const workDir = mkdtempSync(path.join(tmpdir(), 'backdrop-cli-scripted-'));
  const input = path.join(workDir, 'clip.mp4');
  const OUTPUT_BYTES = Buffer.alloc(100_000, 7);
  let requests: string[];
  /** how the scripted server answers: polls that fail before the job completes, a refusal for credit, a cut download */
  let script: { failingPolls: number; refusedForCredit: boolean; cutDownload: boolean };
  let base: string;
  const server = createHttpServer((req, res) => {
    const route = (req.url ?? '').replace(/^\/prefix/, '');
    requests.push(`${req.method} ${req.url}`);
    res.setHeader('Content-Type', 'application/json');
    const job = { id: 'job_1', status: 'completed', progress: 100, output_url: `${base}/out.webm`, output_format: 'webm', duration_seconds: 1, error: null, error_code: null };
    if (req.method === 'POST' && route === '/v1/uploads') return req.resume().on('end', () => res.end(JSON.stringify({ video_url: `${base}/v1/uploads/vid_1`, size: 4 })));
    if (req.method === 'POST' && route === '/v1/jobs') {
      const refused = { ...job, status: 'failed', output_url: null, error: "This job needs at least 1 credit; the key's balance is empty", error_code: 'insufficient_credits' };
      return req.resume().on('end', () => res.end(JSON.stringify(script.refusedForCredit ? { success: true, id: 'job_1', status: 'failed', job: refused } : { success: true, id: 'job_1', status: 'pending', job: { ...job, status: 'pending' } })));
    }
    if (route === '/v1/jobs/job_1') {
      if (script.failingPolls-- > 0) {
        res.statusCode = 503;
        return res.end(JSON.stringify({ success: false, error: { code: 'unavailable', message: 'A service Backdrop depends on is unavailable', request_id: 'req_1' } }));
      }
      return res.end(JSON.stringify(job));
    }
    if (route === '/v1/jobs') return res.end(JSON.stringify({ items: [], total: 0, limit: 20, offset: 0 }));
    if (route === '/out.webm') {
      res.setHeader('Content-Type', 'video/webm');
      res.setHeader('Content-Length', String(OUTPUT_BYTES.length));
      if (!script.cutDownload) return res.end(OUTPUT_BYTES);
      res.write(OUTPUT_BYTES.subarray(0, 50_000));
      return setTimeout(() => res.destroy(), 50);
    }
    res.statusCode = 404;
    res.end(JSON.stringify({ success: false, error: { code: 'not_found', message: 'Not found', request_id: 'req_2' } }));
  });
  const run = (args: string[], extra: Record<string, string> = {}) => backdrop(args, { BACKDROP_URL: base, BACKDROP_KEY: 'bd_live_00000000000000000000000000000000', ...extra });

  beforeAll(async () => {
    ensureBuilt();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    writeFileSync(input, 'not really a video');
  });
  beforeEach(() => {
    requests = [];
    script = { failingPolls: 0, refusedForCredit: false, cutDownload: false };
  });
  afterAll(() => {
    server.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('refuses, before uploading anything, an output that is the input (it was overwritten), a directory, a missing directory, or an existing file without --force', async () => {
    const existing = path.join(workDir, 'existing.webm');
    writeFileSync(existing, 'precious');
    for (const [output, message] of [
      [input, 'is the input'],
      [path.relative(ROOT, input), 'is the input'],
      [workDir, 'is a directory'],
      [path.join(workDir, 'nowhere', 'out.webm'), 'No such directory'],
      [existing, 'exists: pass --force'],
    ]) {
      const refused = await run(['remove', input, '-o', output, '--format', 'webm']);
      expect([output, refused.code]).toEqual([output, 2]);
      expect(refused.stderr).toContain(message);
    }
    expect(requests).toEqual([]);
    expect(readFileSync(input, 'utf8')).toBe('not really a video');
    expect(readFileSync(existing, 'utf8')).toBe('precious');
    const forced = await run(['remove', input, '-o', existing, '--force']);
    expect(forced.code).toBe(0);
    expect(readFileSync(existing)).toEqual(OUTPUT_BYTES);
  });

  it('a download cut short leaves the file as it was and no partial beside it, names the job, and ends with 4 (it left a partial file over the old one, exit 70)', async () => {
    const kept = path.join(workDir, 'kept.webm');
    writeFileSync(kept, 'precious');
    script.cutDownload = true;
    const cut = await run(['remove', input, '-o', kept, '--force']);
    expect(cut.code).toBe(4);
    expect(cut.stderr).toContain("Downloading job job_1's output failed");
    expect(cut.stderr).not.toMatch(/at .*\.js:\d+/);
    expect(readFileSync(kept, 'utf8')).toBe('precious');
    expect(existsSync(`${kept}.part`)).toBe(false);
  });

  it('download: a completed job\'s output again, to -o, refusing an existing file without --force and naming a job of no such id (a cut download could not be fetched again)', async () => {
    const output = path.join(workDir, 'again.webm');
    const saved = await run(['download', 'job_1', '-o', output]);
    expect([saved.code, saved.stdout]).toEqual([0, `${output}\n`]);
    expect(readFileSync(output)).toEqual(OUTPUT_BYTES);
    expect((await run(['download', 'job_1', '-o', output])).code).toBe(2);
    expect((await run(['download', 'job_1', '-o', output, '--force'])).code).toBe(0);
    const unknown = await run(['download', 'job_2', '-o', path.join(workDir, 'none.webm')]);
    expect([unknown.code, unknown.stderr]).toEqual([3, expect.stringContaining('HTTP 404 not_found')]);
    expect((await run(['download'])).code).toBe(2);
  });

  it('a poll answered 503 is asked again and the job is followed to its end (the command gave up on a job still running)', async () => {
    script.failingPolls = 2;
    const output = path.join(workDir, 'after-outage.webm');
    const followed = await run(['remove', input, '-o', output]);
    expect([followed.code, followed.stderr]).toEqual([0, expect.stringContaining('asking again in')]);
    expect(readFileSync(output)).toEqual(OUTPUT_BYTES);
  }, 30000);

  it('a job refused for credit ends with 3, saying why, and is not called started (exit 1 after "started")', async () => {
    script.refusedForCredit = true;
    const refused = await run(['remove', input, '-o', path.join(workDir, 'refused.webm')]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('Job job_1 was not started: ');
    expect(refused.stderr).toContain('(insufficient_credits)');
    expect(refused.stderr).not.toContain('started\n');
  });

  it('keeps the path of a BACKDROP_URL under a prefix (it asked the root)', async () => {
    const listed = await run(['jobs'], { BACKDROP_URL: `${base}/prefix/` });
    expect(listed.code).toBe(0);
    expect((await run(['jobs'], { BACKDROP_URL: `${base}/prefix` })).code).toBe(0);
    expect(requests).toEqual(['GET /prefix/v1/jobs', 'GET /prefix/v1/jobs']);
  });

  it('the admin CLI answers --help without a database, and names an unknown command', () => {
    const dataDir = path.join(workDir, 'admin-data');
    const admin = (args: string[]) => spawnSync(process.execPath, [path.join(ROOT, 'dist/src/cli/admin.js'), ...args], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' }, encoding: 'utf8' });
    const help = admin(['--help']);
    expect([help.status, help.stdout]).toEqual([0, expect.stringContaining('Usage: npm run admin -- <command>')]);
    const unknown = admin(['frobnicate']);
    expect([unknown.status, unknown.stderr]).toEqual([1, expect.stringContaining('Unknown command "frobnicate"')]);
    expect(existsSync(dataDir)).toBe(false);
  });

  it("the admin CLI's db: commands show, apply and revert migrations under the servers' lock (npm run migration:show|run|revert)", async () => {
    const database = await createTestDatabase();
    try {
      const db = (command: string) => {
        const run = spawnSync(process.execPath, [path.join(ROOT, 'dist/src/cli/admin.js'), command], { cwd: ROOT, env: { ...process.env, DATABASE_URL: database.url }, encoding: 'utf8' });
        expect([command, run.status, run.stderr]).toEqual([command, 0, '']);
        return JSON.parse(run.stdout);
      };
      const fresh = db('db:status');
      expect(fresh.applied).toEqual([]);
      expect(fresh.pending.length).toBe(MIGRATIONS.length);
      expect(db('db:migrate').applied).toEqual(fresh.pending);
      expect(db('db:status')).toEqual({ applied: fresh.pending, pending: [] });
      const newest = fresh.pending[fresh.pending.length - 1];
      expect(db('db:revert')).toEqual({ reverted: newest });
      expect(db('db:status')).toEqual({ applied: fresh.pending.slice(0, -1), pending: [newest] });
      expect(db('db:migrate').applied).toEqual([newest]);
    } finally {
      await database.drop();
    }
  }, 120_000);
});
