import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { loadConfig } from '../../src/config/app-config';
import { EngineVideoProbe } from '../../src/modules/uploads/adapters/ffprobe/engine.video-probe';
import { InMemoryVideoProbe } from '../../src/modules/uploads/adapters/in-memory/in-memory.video-probe';
import { isRefusal, VideoProbe } from '../../src/modules/uploads/ports/video-probe';
import { MEDIA_DIR } from '../support/test-app';

const CLIP = path.join(MEDIA_DIR, 'portrait-pan.mp4');
const IMAGE = path.join(MEDIA_DIR, 'astronaut.png');

/** the real gate, and the in-memory one told of the two files, as a test that uses it tells it */
describe.each([
  ['the engine (sniffed, pinned ffprobe)', (): VideoProbe => new EngineVideoProbe(loadConfig({}))],
  ['in memory', (): VideoProbe => new InMemoryVideoProbe().knowVideo(readFileSync(CLIP), { durationSeconds: 4, frameRate: 25, width: 640, height: 360 }).knowImage(readFileSync(IMAGE), { width: 512, height: 512 })],
])('VideoProbe contract: %s', (_name, make) => {
  const probe = make();
  let dir: string;
  let notMedia: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'video-probe-'));
    notMedia = path.join(dir, 'notes.mp4');
    writeFileSync(notMedia, 'plain text named like a video\n'.repeat(100));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('probes a video it accepts: its duration, frame rate and size', async () => {
    expect(await probe.probe(CLIP)).toEqual({ durationSeconds: 4, frameRate: 25, width: 640, height: 360 });
  });

  it('probes a background image it accepts: its size', async () => {
    expect(await probe.probeImage(IMAGE)).toEqual({ width: 512, height: 512 });
  });

  it('refuses a file that is no video or image as unsupported, with a reason', async () => {
    for (const refusal of [await probe.probe(notMedia), await probe.probeImage(notMedia), await probe.probe(IMAGE)]) {
      expect(isRefusal(refusal) && refusal.refused).toBe('unsupported');
      expect(isRefusal(refusal) && refusal.reason.length).toBeGreaterThan(0);
    }
  });

  it('does not refuse the head of a file it accepts', () => {
    expect(probe.headBytes).toBeGreaterThan(0);
    expect(probe.refusalOfHead(readFileSync(CLIP).subarray(0, probe.headBytes), 'video')).toBeNull();
    expect(probe.refusalOfHead(readFileSync(IMAGE).subarray(0, probe.headBytes), 'image')).toBeNull();
  });
});
