import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeEntryArgs } from '../../../src/engine/runner/typescript-loader';

/** the module as a fresh process loads it: what it found whole before is forgotten */
function freshCache(): typeof import('../../../src/engine/models/runtime/model-file-cache') {
  let loaded: typeof import('../../../src/engine/models/runtime/model-file-cache') | undefined;
  jest.isolateModules(() => (loaded = jest.requireActual<typeof import('../../../src/engine/models/runtime/model-file-cache')>('../../../src/engine/models/runtime/model-file-cache')));
  if (!loaded) throw new Error('not loaded');
  return loaded;
}

describe('the converted models on disk', () => {
  let dir: string;
  let target: string;
  const model = Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 7) % 256));
  let builds: number;
  const build = () => {
    builds += 1;
    return model;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'model-cache-'));
    target = join(dir, 'models', 'rvm-360x640-d1-r3.onnx');
    builds = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('builds a model once, writes its checksum beside it and leaves no temporary file; later processes reuse it', () => {
    expect(freshCache().cachedModelFile(target, build)).toBe(target);
    expect(freshCache().cachedModelFile(target, build)).toBe(target);
    expect(builds).toBe(1);
    expect(readFileSync(target)).toEqual(model);
    expect(readFileSync(`${target}.sha256`, 'utf8')).toMatch(/^sha256 [0-9a-f]{64} bytes 4096\n$/);
    expect(readdirSync(join(dir, 'models')).sort()).toEqual(['rvm-360x640-d1-r3.onnx', 'rvm-360x640-d1-r3.onnx.sha256']);
  });

  it.each([
    ['cut short (a full disk, a crash before the disk had it)', () => truncateSync(target, 1000)],
    ['empty', () => truncateSync(target, 0)],
    ['with damaged bytes of the same length', () => writeFileSync(target, Buffer.from(model).fill(0, 100, 200))],
    ['without its checksum (written before checksums, or the write of it never finished)', () => rmSync(`${target}.sha256`)],
  ])('builds the model again where the cached file is %s, rather than failing or matting with it', (_, damage) => {
    freshCache().cachedModelFile(target, build);
    damage();
    expect(freshCache().isCachedModelFile(target)).toBe(false);
    expect(freshCache().cachedModelFile(target, build)).toBe(target);
    expect(builds).toBe(2);
    expect(readFileSync(target)).toEqual(model);
    expect(freshCache().isCachedModelFile(target)).toBe(true);
  });

  it('a file replaced in the same process is checked again', () => {
    const cache = freshCache();
    cache.cachedModelFile(target, build);
    expect(cache.isCachedModelFile(target)).toBe(true);
    truncateSync(target, 10);
    expect(cache.isCachedModelFile(target)).toBe(false);
  });

  it('a build that fails writes nothing', () => {
    expect(() =>
      freshCache().cachedModelFile(target, () => {
        throw new Error('conversion failed');
      }),
    ).toThrow('conversion failed');
    expect(existsSync(target)).toBe(false);
  });

  describe('processes that need the same model at once (a cluster starting on one cache)', () => {
    /** a process of its own asking for `target`; its build logs its pid to `log` and takes `holdMs` */
    function buildInOwnProcess(log: string, holdMs: number): Promise<number | null> {
      const child = spawn(process.execPath, [...nodeEntryArgs(join(__dirname, '..', 'support'), 'build-model-main'), JSON.stringify({ target, log, holdMs })], { stdio: 'ignore' });
      return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    }

    it('one builds it while the others wait and take what it built (each converted it, ISNet 600 MB apiece)', async () => {
      const log = join(dir, 'builds.log');
      expect(await Promise.all([0, 1, 2].map(() => buildInOwnProcess(log, 1500)))).toEqual([0, 0, 0]);
      expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(1);
      expect(readFileSync(target, 'utf8')).toBe('a converted model');
      expect(freshCache().isCachedModelFile(target)).toBe(true);
      expect(existsSync(`${target}.building`)).toBe(false);
    }, 30_000);

    it('waits for a live builder of this host however long it takes (taken over after 3 minutes, two built at once), then takes what it built', async () => {
      const log = join(dir, 'builds.log');
      mkdirSync(join(dir, 'models'), { recursive: true });
      writeFileSync(`${target}.building`, `${hostname()} ${process.pid} a-live-build\n`);
      utimesSync(`${target}.building`, new Date(Date.now() - 20 * 60_000), new Date(Date.now() - 20 * 60_000));
      const waiting = buildInOwnProcess(log, 0);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(existsSync(log)).toBe(false);
      expect(readFileSync(`${target}.building`, 'utf8')).toContain('a-live-build');
      freshCache().writeModelFile(target, Buffer.from('a converted model'));
      rmSync(`${target}.building`);
      expect(await waiting).toBe(0);
      expect(existsSync(log)).toBe(false); // it took the model the other built
    }, 30_000);

    it.each([
      ['of a process of this host that is gone', () => `${hostname()} 2147483646 x\n`, 0],
      ['of another host, older than a build takes', () => 'another-host 1 x\n', 6 * 60_000],
    ])('a build lock %s is taken over', (_case, holder, ageMs) => {
      mkdirSync(join(dir, 'models'), { recursive: true });
      writeFileSync(`${target}.building`, holder());
      utimesSync(`${target}.building`, new Date(Date.now() - ageMs), new Date(Date.now() - ageMs));
      const started = Date.now();
      expect(freshCache().cachedModelFile(target, build)).toBe(target);
      expect([builds, Date.now() - started < 5000, existsSync(`${target}.building`)]).toEqual([1, true, false]);
    });
  });
});
