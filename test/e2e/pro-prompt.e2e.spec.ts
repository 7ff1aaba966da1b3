/**
 * @slow
 *
 * The official Python client's example prompt, through the real API and the real worker
 * (WORKER_GATEWAY=local: the engine in a child process, real models and ffmpeg). The requests are
 * the ones the client sends (REFERENCES.md: `upload(file)` posts the file as `file` to /v1/uploads;
 * `create_job(video_url, model="pro", text_prompt="person wearing red jacket")` posts
 * `{video_url, model, bg_type: "green", output_format: "webm", auto_start: true, text_prompt}` to
 * /v1/jobs; `wait_for_completion` polls GET /v1/jobs/{id}), on the two-person composite
 * (bench/matting/prompt-composites.ts): only the person in red may be left over the green.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { PROMPT_COMPOSITES, W, H, writePromptComposite } from '../../bench/matting/prompt-composites';
import { ffmpegPath } from '../../src/engine/media/binaries';
import { eventually, startTestApp, TestApp } from '../support/test-app';

const CLIPS_DIR = path.resolve(process.cwd(), '.cache/prompt-composites');
const MODEL_CACHE_DIR = path.resolve(process.cwd(), '.cache/models');
const MINUTES = 60_000;
/** bg_type green, as the API composites it */
const GREEN = [9, 162, 70];

function decode(file: string, pixFmt: 'rgb24' | 'gray', bytesPerPixel: number): Uint8Array[] {
  const bytes = execFileSync(ffmpegPath(), ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', pixFmt, '-'], { maxBuffer: 1 << 30 });
  const size = W * H * bytesPerPixel;
  return Array.from({ length: Math.floor(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
}

describe('pro: the official Python client\'s prompt "person wearing red jacket"', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:6379', WORKER_GATEWAY: 'local', MODEL_CACHE_DIR }, { realWorkerGateway: true });
  }, 2 * MINUTES);
  afterAll(() => t?.close());

  it('keeps only the person in red, over green', async () => {
    const clip = writePromptComposite('red-blue', CLIPS_DIR);
    const key = await t.createKey(100_000);
    const upload = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', clip.video);
    expect(upload.status).toBe(200);
    const created = await t.http
      .post('/v1/jobs')
      .set('X-Api-Key', key)
      .set('Content-Type', 'application/json')
      .send({ video_url: upload.body.video_url, model: 'pro', bg_type: 'green', output_format: 'webm', auto_start: true, text_prompt: 'person wearing red jacket' });
    expect(created.status).toBe(200);
    const job = await eventually(
      async () => {
        const res = await t.http.get(`/v1/jobs/${created.body.id}`).set('X-Api-Key', key);
        return res.body.status === 'completed' || res.body.status === 'failed' ? res.body : undefined;
      },
      12 * MINUTES,
      1000,
    );
    expect(job).toMatchObject({ status: 'completed', model: 'pro', text_prompt: 'person wearing red jacket' });
    expect(job.notes.join(' ')).toMatch(/"person red \(upper clothing\)": keeping 1 of \d+ segment/);

    const output = path.join(t.dataDir, 'downloaded.webm');
    const file = await fetch(job.output_url.replace(/^http:\/\/[^/]+/, t.baseUrl));
    expect(file.status).toBe(200);
    writeFileSync(output, Buffer.from(await file.arrayBuffer()));
    const frames = decode(output, 'rgb24', 3);
    const [blue, red] = clip.truths.map((truth) => decode(truth, 'gray', 1));
    expect(PROMPT_COMPOSITES['red-blue'].subjects).toEqual(['blue person', 'red person']);
    expect(frames.length).toBe(red.length);
    // a pixel is kept when it is far from the green (the encoder's noise stays well within 60)
    // per frame: the red person's pixels and how many are kept; the blue person's and how many are kept;
    // and whether the two are apart (their alphas' columns do not come within 10% of the width)
    const tally = { apart: { blue: 0, blueKept: 0 }, crossing: { blue: 0, blueKept: 0 }, red: 0, redKept: 0, union: 0 };
    frames.forEach((rgb, f) => {
      const columns = (alpha: Uint8Array) => {
        let lo = W;
        let hi = -1;
        for (let p = 0; p < W * H; p++) if (alpha[p] >= 128) [lo, hi] = [Math.min(lo, p % W), Math.max(hi, p % W)];
        return [lo, hi];
      };
      const [r0, r1] = columns(red[f]);
      const [b0, b1] = columns(blue[f]);
      const part = b0 > r1 + 0.1 * W || r0 > b1 + 0.1 * W ? tally.apart : tally.crossing;
      for (let p = 0; p < W * H; p++) {
        const kept = Math.abs(rgb[3 * p] - GREEN[0]) + Math.abs(rgb[3 * p + 1] - GREEN[1]) + Math.abs(rgb[3 * p + 2] - GREEN[2]) > 60;
        if (kept || red[f][p] >= 128) tally.union++;
        if (red[f][p] >= 128) {
          tally.red++;
          if (kept) tally.redKept++;
        } else if (blue[f][p] >= 128) {
          part.blue++;
          if (kept) part.blueKept++;
        }
      }
    });
    const iou = tally.redKept / tally.union;
    const leak = (part: { blue: number; blueKept: number }) => part.blueKept / Math.max(1, part.blue);
    const allBlue = { blue: tally.apart.blue + tally.crossing.blue, blueKept: tally.apart.blueKept + tally.crossing.blueKept };
    console.log(
      `"person wearing red jacket" through the API: IoU with the red person ${iou.toFixed(4)} (${((100 * tally.redKept) / tally.red).toFixed(1)}% of it kept); the blue person kept ${(100 * leak(allBlue)).toFixed(2)}% (apart ${(100 * leak(tally.apart)).toFixed(2)}%, crossing ${(100 * leak(tally.crossing)).toFixed(2)}%)\n  notes: ${job.notes.join(' | ')}`,
    );
    // measured: IoU 0.913 (kept = off the green, so the encoded soft edge counts), red 99.8% kept, blue
    // 1.58% kept: 0.00% while apart, 5.45% where they cross (2.09% and 7.2% before shared colours went
    // by a tall window around them anywhere in the matte, colour-apart.ts); on a CPU with VNNI (RVM in
    // int8, the output's people mirrored and averaged) 0.926, 99.7% and 1.61% (0.00% / 5.58%); the
    // issue's floors: IoU 0.9, 2%
    expect(tally.redKept / tally.red).toBeGreaterThan(0.95);
    expect(iou).toBeGreaterThanOrEqual(0.9);
    expect(leak(tally.apart)).toBeLessThan(0.02);
    expect(leak(allBlue)).toBeLessThan(0.02);
  }, 15 * MINUTES);
});
