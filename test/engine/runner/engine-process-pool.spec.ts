import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ffmpegPath, ffprobePath, useMediaBinaries } from '../../../src/engine/media/binaries';
import { childrenOf } from '../../../bench/engine/process-tree';
import { launchEngineChild } from '../../../src/engine/runner/child-launcher';
import { ENGINE_MALLOC_SETTINGS, ENGINE_TELEMETRY_SETTINGS, engineProcessEnv, useEngineProcessEnv } from '../../../src/engine/runner/engine-environment';
import { EngineProcessPool } from '../../../src/engine/runner/engine-process-pool';
import { EngineError, EngineProgress, EngineRequest } from '../../../src/engine/types';
import { MEDIA } from '../support/media';

describe('EngineProcessPool', () => {
  let dir: string;
  let pool: EngineProcessPool;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-pool-'));
    pool = new EngineProcessPool({
      cacheDir: dir,
      concurrency: 2,
      modelModule: join(__dirname, '..', 'support', 'fake-model-module.ts'),
      cancelGraceMs: 2000,
    });
  });
  afterAll(async () => {
    await pool.close();
    await rm(dir, { recursive: true, force: true });
  });

  const request = (name: string, overrides: Partial<EngineRequest> = {}): EngineRequest => ({
    inputPath: MEDIA.portraitPan,
    outputPath: join(dir, name),
    model: 'light',
    outputFormat: 'webm',
    background: { type: 'transparent' },
    previewDuration: 0.5,
    ...overrides,
  });

  it("an engine child and the ffmpeg spawner it starts run with the environment the entry point configured: ONNX Runtime's telemetry off, the engine's malloc settings (engine-environment.ts)", async () => {
    const expected = engineProcessEnv({ ...process.env, ADMIN_TOKEN: 'a'.repeat(32), DATABASE_URL: 'postgres://backdrop:pw@db/x' });
    useEngineProcessEnv(expected); // as src/bootstrap.ts and src/worker/main.ts do from their configuration
    const child = launchEngineChild({ cacheDir: dir, modelModule: join(__dirname, '..', 'support', 'fake-model-module.ts') });
    try {
      await once(child, 'message'); // ready
      const spawner = childrenOf(child.pid!).find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('spawner-main'))!;
      for (const pid of [child.pid!, spawner]) {
        const environ = new Map(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean).map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
        for (const name of Object.keys({ ...ENGINE_TELEMETRY_SETTINGS, ...ENGINE_MALLOC_SETTINGS })) expect([name, environ.get(name)]).toEqual([name, expected[name]]);
        expect([environ.has('ADMIN_TOKEN'), environ.has('DATABASE_URL')]).toEqual([false, false]);
      }
    } finally {
      child.disconnect();
      await once(child, 'exit');
    }
  });

  it('an engine child starts its spawner at start-up, before any job, while it is still small', async () => {
    const child = launchEngineChild({ cacheDir: dir, modelModule: join(__dirname, '..', 'support', 'fake-model-module.ts') });
    try {
      await once(child, 'message'); // ready
      const spawners = childrenOf(child.pid!).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('spawner-main'));
      expect(spawners).toHaveLength(1);
    } finally {
      child.disconnect();
      await once(child, 'exit');
    }
  });

  it('runs jobs in child processes, concurrently, and reports progress', async () => {
    const progress: EngineProgress[] = [];
    const results = await Promise.all([
      pool.run(request('a.webm'), (p) => progress.push(p)),
      pool.run(request('b.mp4', { outputFormat: 'mp4', background: { type: 'color', rgb: [0, 255, 0] } })),
      pool.run(request('c.webm')),
    ]);
    expect(results.map((result) => result.frames)).toEqual([13, 13, 13]);
    expect(results[1].outputFormat).toBe('mp4');
    expect(progress.at(-1)).toEqual({ framesDone: 13, framesTotal: 13 });
    for (const name of ['a.webm', 'b.mp4', 'c.webm']) expect(existsSync(join(dir, name))).toBe(true);
  });

  it('cancels a running job: the child stops and no output is left behind', async () => {
    const controller = new AbortController();
    const outputPath = join(dir, 'canceled.webm');
    const started = Date.now();
    const run = pool.run(request('canceled.webm', { model: 'pro', previewDuration: undefined }), (p) => {
      if (p.framesDone >= 2) controller.abort();
    }, controller.signal);
    await expect(run).rejects.toMatchObject({ code: 'canceled' });
    expect(Date.now() - started).toBeLessThan(8000);
    expect(existsSync(outputPath)).toBe(false);
    expect((await readdir(dir)).filter((name) => name.includes('canceled'))).toEqual([]);
  });

  it('kills the child and its ffmpeg processes when it does not answer a cancel in time', async () => {
    const impatient = new EngineProcessPool({ cacheDir: dir, modelModule: pool['options'].modelModule, cancelGraceMs: 200 });
    try {
      const controller = new AbortController();
      const run = impatient.run(request('stuck.webm', { model: 'original', previewDuration: undefined }), () => controller.abort(), controller.signal);
      await expect(run).rejects.toMatchObject({ code: 'canceled' });
      expect((await readdir(dir)).filter((name) => name.includes('stuck'))).toEqual([]);
      // the pool still works afterwards, with a fresh child
      await expect(impatient.run(request('after.webm'))).resolves.toMatchObject({ frames: 13 });
    } finally {
      await impatient.close();
    }
  });

  it('runs a job again on a fresh child when its child dies under it (an OOM kill failed the job), reporting progress only forward; a second death fails it', async () => {
    const solo = new EngineProcessPool({ cacheDir: dir, concurrency: 1, modelModule: pool['options'].modelModule });
    const killed = new Set<number>();
    const killRunningChild = (): void => {
      for (const worker of solo['workers']) {
        if (worker.job && worker.child.pid && !killed.has(worker.child.pid)) {
          killed.add(worker.child.pid);
          process.kill(-worker.child.pid, 'SIGKILL');
        }
      }
    };
    try {
      const progress: number[] = [];
      const survived = await solo.run(request('restarted.webm', { model: 'pro', previewDuration: 1 }), (p) => {
        progress.push(p.framesDone);
        if (killed.size === 0 && p.framesDone >= 3) killRunningChild();
      });
      expect(killed.size).toBe(1);
      expect(survived.frames).toBe(25);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      expect(progress.at(-1)).toBe(25);
      expect(existsSync(join(dir, 'restarted.webm'))).toBe(true);

      const outputPath = join(dir, 'died-twice.webm');
      const dying = solo.run(request('died-twice.webm', { model: 'pro', previewDuration: 1 }), (p) => p.framesDone >= 1 && killRunningChild());
      await expect(dying).rejects.toThrow(/engine process died \(SIGKILL\), on a fresh process too/);
      expect(killed.size).toBe(3);
      expect(existsSync(outputPath)).toBe(false);
      await expect(solo.run(request('after-deaths.webm'))).resolves.toMatchObject({ frames: 13 });
    } finally {
      await solo.close();
    }
  });

  it.each([
    ['it reports so (ENOENT)', '/nonexistent/node', /spawn \/nonexistent\/node ENOENT/],
    ['the start throws (an invalid path; fork\'s ENOMEM is one too)', '/bad\u0000node', /the engine process could not be started/],
  ])('a child that cannot be started, as %s, fails its job alone: the next job gets a fresh child (it stayed in the pool and failed every later job, or the job ran after failing)', async (_case, execPath, reason) => {
    const solo = new EngineProcessPool({ cacheDir: dir, concurrency: 1, modelModule: pool['options'].modelModule });
    const real = process.execPath;
    try {
      process.execPath = execPath;
      const failed = solo.run(request('never-started.webm'));
      process.execPath = real;
      await expect(failed).rejects.toThrow(reason);
      expect(solo['queue']).toHaveLength(0);
      await expect(solo.run(request('after-failed-start.webm'))).resolves.toMatchObject({ frames: 13 });
    } finally {
      process.execPath = real;
      await solo.close();
    }
  });

  it('passes engine errors through with their code', async () => {
    const notVideo = join(dir, 'not-a-video.mp4');
    await writeFile(notVideo, 'hello');
    await expect(pool.run(request('x.webm', { inputPath: notVideo }))).rejects.toMatchObject({ code: 'input_invalid' });
    const failure = pool.run(request('y.webm', { model: 'human' }));
    await expect(failure).rejects.toBeInstanceOf(EngineError);
    await expect(failure).rejects.toMatchObject({ code: 'model_unavailable' });
  });

  it('keeps a finished output when the child dies, or the pool closes, right after the job settles', async () => {
    const solo = new EngineProcessPool({ cacheDir: dir, concurrency: 1, modelModule: pool['options'].modelModule });
    const outputPath = join(dir, 'finished.webm');
    try {
      await solo.run(request('finished.webm'));
      // the worker holds no job once its job has settled (it held it until its work directory was removed)
      expect([...solo['workers']].filter((worker) => worker.job)).toHaveLength(0);
      for (const worker of solo['workers']) worker.child.kill('SIGKILL');
    } finally {
      await solo.close();
    }
    expect(existsSync(outputPath)).toBe(true);
  });

  it('children run the ffmpeg builds their parent was configured with', async () => {
    const calls = join(dir, 'calls.log');
    const wrapper = async (name: string, real: string): Promise<string> => {
      const path = join(dir, name);
      await writeFile(path, `#!/bin/sh\necho ${name} >> '${calls}'\nexec '${real}' "$@"\n`);
      await chmod(path, 0o755);
      return path;
    };
    const bundled = { ffmpeg: ffmpegPath(), ffprobe: ffprobePath() };
    useMediaBinaries({ ffmpeg: await wrapper('wrapped-ffmpeg', bundled.ffmpeg), ffprobe: await wrapper('wrapped-ffprobe', bundled.ffprobe) });
    const configured = new EngineProcessPool({ cacheDir: dir, modelModule: pool['options'].modelModule });
    try {
      await configured.run(request('wrapped.webm'));
    } finally {
      useMediaBinaries({});
      await configured.close();
    }
    const used = (await readFile(calls, 'utf8')).split('\n');
    expect(used).toContain('wrapped-ffmpeg');
    expect(used).toContain('wrapped-ffprobe');
    expect(existsSync(join(dir, 'wrapped.webm'))).toBe(true);
  });
});
