import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keepRecentGeometries, UNUSED_MODEL_AGE_MS } from '../../../src/engine/models/rvm/rvm-cache';

describe('the RVM model cache', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'rvm-cache-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** a geometry's files as the converter writes them, last used `minutesAgo` */
  const geometry = (size: string, minutesAgo: number): string[] => {
    const files = ['', '-int8q7', '-int8q7-stateless-alpha1-s3', '-int8q7-recurrent-alpha1-s3'].map((variant) => join(dir, `rvm-${size}-d1-r3${variant}.onnx`));
    const at = new Date(Date.now() - minutesAgo * 60_000);
    for (const file of files) {
      writeFileSync(file, 'model');
      writeFileSync(`${file}.sha256`, 'sha256 ... bytes 5');
      utimesSync(file, at, at);
      utimesSync(`${file}.sha256`, at, at);
    }
    return files;
  };
  const ago = (ms: number) => new Date(Date.now() - ms);

  it('keeps the geometries used most recently and removes the rest (each aspect ratio a client sent added 35 MB for good), never the one opened now nor other models', () => {
    const opened = geometry('360x640', 500);
    for (let index = 0; index < 5; index += 1) geometry(`${360 + 2 * index}x640`, index * 10);
    writeFileSync(join(dir, 'nanodet-416-r1.onnx'), 'detector');
    const stages = opened.slice(2);
    keepRecentGeometries(dir, stages, 3);
    const left = new Set(readdirSync(dir).map((name) => name.replace(/-r3.*$/, '')));
    expect([...left].sort()).toEqual(['nanodet-416-r1.onnx', 'rvm-360x640-d1', 'rvm-362x640-d1', 'rvm-364x640-d1'].sort());
    expect(stages.every((file) => existsSync(file) && existsSync(`${file}.sha256`))).toBe(true);
    expect(readdirSync(dir).filter((name) => name.startsWith('rvm-366x640') || name.startsWith('rvm-368x640'))).toEqual([]); // checksums too
  });

  it('never removes the geometry being opened, even where it could not be marked used (its files another user\'s)', () => {
    const opened = geometry('360x640', 120);
    geometry('362x640', 0);
    // marked at a time before the other geometry's use, as a file this process may not mark keeps its old time
    keepRecentGeometries(dir, opened.slice(2), 1, ago(3600_000));
    expect(opened.slice(2).every((file) => existsSync(file))).toBe(true);
    expect(readdirSync(dir).filter((name) => name.startsWith('rvm-362x640'))).toEqual([]);
  });

  it('still tidies the cache when a file in use could not be marked (before, one such file stopped it all)', () => {
    geometry('362x640', 10);
    geometry('364x640', 0);
    keepRecentGeometries(dir, [join(dir, 'rvm-gone-d1-r3.onnx')], 1);
    expect(readdirSync(dir).filter((name) => name.startsWith('rvm-362x640'))).toEqual([]);
  });

  it('removes any model unused for 30 days with its checksum (older revisions, the float32 models int8 ones were built from), and checksums whose model is gone', () => {
    const opened = geometry('360x640', 0);
    const model = (name: string, age: number) => {
      for (const file of [join(dir, name), join(dir, `${name}.sha256`)]) {
        writeFileSync(file, 'model');
        utimesSync(file, ago(age), ago(age));
      }
    };
    model('isnet-fp32-1024x1024-r5.onnx', UNUSED_MODEL_AGE_MS + 60_000);
    model('rvm-360x640-d1-r2-int8q6.onnx', UNUSED_MODEL_AGE_MS + 60_000);
    model('isnet-1024x1024-r5-int8q3.onnx', UNUSED_MODEL_AGE_MS - 60_000);
    writeFileSync(join(dir, 'nanodet-416-r0.onnx.sha256'), 'sha256 ...');
    utimesSync(join(dir, 'nanodet-416-r0.onnx.sha256'), ago(2 * 3600_000), ago(2 * 3600_000));
    keepRecentGeometries(dir, opened);
    const left = readdirSync(dir).filter((name) => !name.startsWith('rvm-360x640-d1-r3'));
    expect(left.sort()).toEqual(['isnet-1024x1024-r5-int8q3.onnx', 'isnet-1024x1024-r5-int8q3.onnx.sha256']);
  });

  it('removes writes that never finished and builds\' locks once they are an hour old (a full disk or a killed process left them for good)', () => {
    const opened = geometry('360x640', 0);
    const [old, recent, oldLock] = ['rvm-180x320-d1-r3.onnx.123.1.tmp', 'rvm-180x320-d1-r3.onnx.124.2.tmp', 'isnet-medium.onnx.building'].map((name) => join(dir, name));
    for (const file of [old, recent, oldLock]) writeFileSync(file, 'part');
    for (const file of [old, oldLock]) utimesSync(file, new Date(Date.now() - 2 * 3600_000), new Date(Date.now() - 2 * 3600_000));
    keepRecentGeometries(dir, opened);
    expect([existsSync(old), existsSync(recent), existsSync(oldLock)]).toEqual([false, true, false]);
  });

  it('is kept on a best effort: a cache it cannot change (prepared ahead, another user\'s) still serves, with nothing thrown', () => {
    expect(() => keepRecentGeometries(dir, [join(dir, 'rvm-gone-d1-r3.onnx')])).not.toThrow();
    expect(() => keepRecentGeometries(join(dir, 'missing'), [])).not.toThrow();
  });
});
