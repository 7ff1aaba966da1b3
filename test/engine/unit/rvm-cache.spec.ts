import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keepRecentGeometries } from '../../../src/engine/models/rvm/rvm-cache';

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
      utimesSync(file, at, at);
    }
    return files;
  };

  it('keeps the geometries used most recently and removes the rest (each aspect ratio a client sent added 35 MB for good), never the one opened now nor other models', () => {
    const opened = geometry('360x640', 500);
    for (let index = 0; index < 5; index += 1) geometry(`${360 + 2 * index}x640`, index * 10);
    writeFileSync(join(dir, 'nanodet-416-r1.onnx'), 'detector');
    const stages = opened.slice(2);
    keepRecentGeometries(dir, stages, 3);
    const left = new Set(readdirSync(dir).map((name) => name.replace(/-r3.*$/, '')));
    expect([...left].sort()).toEqual(['nanodet-416-r1.onnx', 'rvm-360x640-d1', 'rvm-362x640-d1', 'rvm-364x640-d1'].sort());
    expect(stages.every((file) => existsSync(file))).toBe(true);
  });

  it('removes writes that never finished once they are an hour old (a full disk left them for good)', () => {
    const opened = geometry('360x640', 0);
    const [old, recent] = ['rvm-180x320-d1-r3.onnx.123.1.tmp', 'rvm-180x320-d1-r3.onnx.124.2.tmp'].map((name) => join(dir, name));
    writeFileSync(old, 'part');
    writeFileSync(recent, 'part');
    utimesSync(old, new Date(Date.now() - 2 * 3600_000), new Date(Date.now() - 2 * 3600_000));
    keepRecentGeometries(dir, opened);
    expect([existsSync(old), existsSync(recent)]).toEqual([false, true]);
  });

  it('is kept on a best effort: a cache it cannot change (prepared ahead, another user\'s) still serves, with nothing thrown', () => {
    expect(() => keepRecentGeometries(dir, [join(dir, 'rvm-gone-d1-r3.onnx')])).not.toThrow();
    expect(() => keepRecentGeometries(join(dir, 'missing'), [])).not.toThrow();
  });
});
