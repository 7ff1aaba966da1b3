/**
 * Hostile media through the real API and the real worker (WORKER_GATEWAY=local: the engine in child
 * processes, real ffmpeg): every case of support/hostile-cases.ts through every door (an upload, a
 * job's video_url, a job's background image_url), served by a loopback server the outbound client
 * is allowed to reach. Each run must be refused or fail cleanly; no local file's content or path may
 * show in any answer or output; the loopback servers must see only the expected fetch; the worker
 * must stay healthy. Decompression bombs are submitted while the worker's memory is measured. The
 * suite prints a tally.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { RssSampler } from '../../bench/engine/process-tree';
import { clip, h264 } from '../support/hostile-media';
import { eventually, startTestApp, TestApp } from '../support/test-app';
import { Door, DOORS, HostileCase, hostileCases } from './support/hostile-cases';
import { LoopbackServer, startLoopbackServer } from './support/loopback-server';

type Outcome = 'refused' | 'failed cleanly' | 'crashed' | 'accepted';
interface Run {
  name: string;
  door: Door;
  outcome: Outcome;
  detail: string;
  rss?: { peakMb: number; growthMb: number };
}

const MARKER = `BACKDROP-SECRET-${randomBytes(8).toString('hex')}`;
/** a bomb decoded unbounded would take hundreds of MB (10000x10000 RGBA: 400 MB; 12000x12000 YUV: 216 MB a frame) */
const MAX_RSS_GROWTH_MB = 120;

describe('hostile media through the API and the real worker', () => {
  let t: TestApp;
  let key: string;
  let secretsDir: string;
  let media: LoopbackServer;
  let victim: LoopbackServer;
  let goodVideoUrl: string;
  let cases: HostileCase[];
  const served = new Map<string, Buffer>();
  const made = new Map<number, Promise<Buffer>>();
  const runs: Run[] = [];

  beforeAll(async () => {
    secretsDir = await mkdtemp(path.join(tmpdir(), 'hostile-secrets-'));
    const textPath = path.join(secretsDir, 'credentials.mp4');
    const videoPath = path.join(secretsDir, 'another-key-output.mp4');
    await writeFile(textPath, `${MARKER}\naws_secret_access_key=${MARKER}\n`);
    await writeFile(videoPath, await clip('64x48', 1, h264, 'mp4'));
    victim = await startLoopbackServer((_req, res) => res.end(MARKER));
    media = await startLoopbackServer((req, res) => {
      const body = served.get(req.url ?? '');
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': req.url?.includes('image') ? 'image/png' : 'video/mp4', 'content-length': String(body.length) });
      res.end(body);
    });
    cases = hostileCases({ textPath, videoPath, victimUrl: `http://127.0.0.1:${victim.port}` });
    t = await startTestApp(
      { REDIS_URL: 'redis://127.0.0.1:6379', WORKER_GATEWAY: 'local', OUTBOUND_ALLOW_LIST: 'localhost', RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_STARTS_PER_MINUTE: '100000' },
      { realWorkerGateway: true },
    );
    key = await t.createKey(1_000_000);
    goodVideoUrl = await processGoodJob();
  }, 120_000);

  afterAll(async () => {
    const count = (outcome: Outcome) => runs.filter((run) => run.outcome === outcome).length;
    const lines = runs.map((run) => `  ${run.outcome.padEnd(14)} ${run.door.padEnd(9)} ${run.name}: ${run.detail}${run.rss ? ` [API+worker tree RSS peak ${run.rss.peakMb} MB, +${run.rss.growthMb} MB]` : ''}`);
    process.stdout.write(
      `\nhostile media: ${runs.length} cases tried, ${count('refused')} refused, ${count('failed cleanly')} failed cleanly, ${count('crashed')} crashed, ${count('accepted')} accepted\n${lines.join('\n')}\n\n`,
    );
    await t?.close();
    await media?.close();
    await victim?.close();
    await rm(secretsDir, { recursive: true, force: true });
  });

  const finished = (id: string) =>
    eventually(async () => {
      const job = (await t.http.get(`/v1/jobs/${id}`).set('X-Api-Key', key)).body;
      return job.status === 'completed' || job.status === 'failed' ? job : undefined;
    }, 60_000, 100);

  /** A real job: the worker works (at the start) and still works (at the end). Returns its upload's video_url. */
  async function processGoodJob(): Promise<string> {
    const upload = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', await clip('160x96', 1, h264, 'mp4'), 'good.mp4');
    expect(upload.status).toBe(200);
    const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: upload.body.video_url, model: 'light', output_format: 'webm', preview_duration: 0.5 });
    const job = await finished(created.body.id);
    expect(job).toMatchObject({ status: 'completed', error_code: null });
    return upload.body.video_url;
  }

  /** One case through one door: what the user sees, classified. */
  async function attempt(hostile: HostileCase, door: Door, bytes: Buffer): Promise<{ outcome: Outcome; detail: string; answers: unknown[]; jobId?: string }> {
    if (door === 'upload') {
      const res = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', bytes, hostile.fileName);
      const envelope = res.body?.success === false && typeof res.body.error?.code === 'string';
      const outcome: Outcome = res.status === 200 ? 'accepted' : res.status >= 400 && res.status < 500 && envelope ? 'refused' : 'crashed';
      return { outcome, detail: `${res.status} ${res.body?.error?.code}: ${res.body?.error?.message}`, answers: [res.text] };
    }
    const urlPath = `/${door === 'image_url' ? 'image' : 'video'}/${served.size}/${hostile.fileName}`;
    served.set(urlPath, bytes);
    const url = `http://localhost:${media.port}${urlPath}`;
    const body = door === 'video_url' ? { video_url: url } : { video_url: goodVideoUrl, background: { type: 'image', image_url: url } };
    const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ ...body, model: 'light', output_format: 'webm', preview_duration: 0.5 });
    if (created.status !== 200) return { outcome: created.status < 500 ? 'refused' : 'crashed', detail: `${created.status} at create`, answers: [created.text] };
    const job = await finished(created.body.id);
    const outcome: Outcome = job.status === 'completed' ? 'accepted' : job.error_code === 'input_invalid' ? 'failed cleanly' : 'crashed';
    return { outcome, detail: `job ${job.error_code}: ${job.error}`, answers: [created.text, JSON.stringify(job)], jobId: job.id };
  }

  /** every file in the API's storage, for outputs a failed job must not have left */
  const storedFiles = (): string[] => {
    const walk = (dir: string): string[] =>
      existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(path.join(dir, entry.name)) : [path.join(dir, entry.name)])) : [];
    return walk(path.join(t.dataDir, 'storage'));
  };

  const table = (): Array<[string, Door, number]> => hostileCases({ textPath: '', videoPath: '', victimUrl: '' }).flatMap((hostile, index) => DOORS.map((door): [string, Door, number] => [hostile.name, door, index]));

  it.each(table())('%s, through %s', async (_name, door, index) => {
    const hostile = cases[index];
    if (!made.has(index)) made.set(index, hostile.make());
    const bytes = await made.get(index)!;
    const mediaHitsBefore = media.hits.length;
    const sampler = new RssSampler();
    sampler.start(25);
    const baseline = sampler.peakTree;
    const { outcome, detail, answers, jobId } = await attempt(hostile, door, bytes);
    sampler.stop();
    const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
    const rss = hostile.bomb ? { peakMb: mb(sampler.peakTree), growthMb: mb(sampler.peakTree - baseline) } : undefined;
    runs.push({ name: hostile.name, door, outcome, detail, rss });

    expect({ outcome, detail }).toEqual({ outcome: door === 'upload' ? 'refused' : 'failed cleanly', detail: expect.any(String) });
    // nothing of the local files, nor where they live, shows in any answer
    for (const answer of answers) {
      expect(String(answer)).not.toContain(MARKER);
      expect(String(answer)).not.toContain(secretsDir);
    }
    // no output was stored for a failed job, and no request reached anything but the expected fetch
    if (jobId) expect(storedFiles().filter((file) => file.includes(jobId))).toEqual([]);
    expect(victim.hits).toEqual([]);
    expect(media.hits.slice(mediaHitsBefore)).toEqual(door === 'upload' ? [] : [expect.stringMatching(/^GET \/(video|image)\/\d+\//)]);
    if (rss) expect(rss.growthMb).toBeLessThan(MAX_RSS_GROWTH_MB);
    // the worker is still healthy
    const health = await t.http.get('/health');
    expect(health.body).toMatchObject({ status: 'healthy', checks: { worker_configured: 'ok' } });
  });

  it('the worker still processes a real job afterwards, and no case crashed', async () => {
    await processGoodJob();
    expect(runs.filter((run) => run.outcome === 'crashed' || run.outcome === 'accepted')).toEqual([]);
    expect(runs.length).toBe(table().length);
  }, 90_000);
});
