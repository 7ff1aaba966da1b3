/**
 * A chunk's decoder seeks its input (pipeline/input-seek.ts) and must still see exactly the frames a
 * single run sees at those positions of the constant-rate sequence: the frames of each window, decoded
 * with seeking, are byte for byte the same slice of the whole decode. On inputs made to be awkward:
 * B-frames with long GOPs, a variable frame rate with still stretches, and
 * a video stream that starts late (a non-zero first timestamp).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ffmpegPath } from '../../src/engine/media/binaries';
import { admitVideo } from '../../src/engine/media/input-gate';
import { runToCompletion } from '../../src/engine/media/process';
import { buildDecodeArgs, FrameWindow, SourceSpec } from '../../src/engine/pipeline/ffmpeg-args';
import { MEDIA_DIR } from '../support/test-app';

const SIZE = { width: 32, height: 18 };
const FRAME_BYTES = SIZE.width * SIZE.height * 3;

async function decode(source: SourceSpec): Promise<Buffer> {
  const { stdout } = await runToCompletion(ffmpegPath(), buildDecodeArgs(source, SIZE));
  return stdout;
}

describe('a chunk seeking its input', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'input-seek-'));
  const portrait = path.join(MEDIA_DIR, 'portrait-pan.mp4');
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  const make = async (name: string, args: string[]): Promise<string> => {
    const file = path.join(work, name);
    await runToCompletion(ffmpegPath(), ['-v', 'error', '-stream_loop', '2', '-i', portrait, ...args, '-y', file]);
    return file;
  };

  it.each([
    ['H.264 with B-frames, a keyframe every 3 s', 'bframes.mp4', ['-c:v', 'libx264', '-preset', 'ultrafast', '-bf', '3', '-g', '75', '-s', '160x90', '-an']],
    // 15 frames of every 25 dropped, timestamps kept: stills of 0.64 s; the sequence's rate is their average, 10 fps
    ['a variable frame rate', 'vfr.mp4', ['-vf', "select='lt(mod(n\\,25)\\,10)',scale=160:90", '-vsync', 'vfr', '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '40', '-an']],
    ['a video stream starting 2.5 s in (VP9)', 'late.webm', ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-g', '50', '-s', '160x90', '-output_ts_offset', '2.5', '-an']],
    // audio from 0, video from 0.7 s: the file starts before its video stream
    ['a video stream starting after the audio', 'delayed.mp4', ['-f', 'lavfi', '-i', 'anoisesrc=d=12', '-map', '0:v', '-map', '1:a', '-c:a', 'aac', '-c:v', 'libx264', '-preset', 'ultrafast', '-s', '160x90', '-filter:v', 'setpts=PTS+0.7/TB']],
  ])('gives the single run\'s frames: %s', async (_case, name, args) => {
    const file = await make(name, args as string[]);
    const video = await admitVideo(file);
    expect(video.videoStart).toBeDefined();
    const whole: SourceSpec = { inputPath: file, pin: video.pin, videoStream: video.videoStream, pictureSeconds: video.durationSeconds, fps: video.fps, size: { width: 160, height: 90 }, videoStart: video.videoStart };
    const everything = await decode(whole);
    const total = everything.length / FRAME_BYTES;
    expect(total).toBeGreaterThan(100);
    // the picture's own length: no copies of its last frame up to the end of a sound that started first
    expect(total).toBe(Math.round(video.durationSeconds * video.fps));
    const at = (share: number) => Math.round(total * share);
    const windows: FrameWindow[] = [{ start: at(0.3), end: at(0.55) }, { start: at(0.55), end: at(0.55) + 1 }, { start: at(0.8) }];
    for (const frames of windows) {
      expect(buildDecodeArgs({ ...whole, frames }, SIZE)).toContain('-ss');
      const slice = await decode({ ...whole, frames });
      const end = frames.end ?? total;
      expect(slice.length / FRAME_BYTES).toBe(end - frames.start);
      expect(slice.equals(everything.subarray(frames.start * FRAME_BYTES, end * FRAME_BYTES))).toBe(true);
    }
  });
});
