import { execFileSync } from 'child_process';
import { join } from 'path';
import { decodeAlphaFrames, ffmpegPath, MEDIA_DIR } from '../../models/support/clips';

/**
 * A two-subject clip made from the two test clips stacked (car-slide above portrait-pan, 640x720),
 * with each subject's ground truth placed on its half and zeros on the other.
 */
export const COMPOSITE = { width: 640, height: 720, fps: 25 };

/** the composite's first `frames` frames as RGB24, scaled by ffmpeg to the session's input size */
export function compositeRgbFrames(width: number, height: number, frames: number): Uint8Array[] {
  const bytes = execFileSync(
    ffmpegPath(),
    ['-v', 'error', '-i', join(MEDIA_DIR, 'car-slide.mp4'), '-i', join(MEDIA_DIR, 'portrait-pan.mp4'), '-filter_complex', `[0:v][1:v]vstack=inputs=2,scale=${width}:${height}`, '-frames:v', String(frames), '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
    { maxBuffer: 1 << 30 },
  );
  const size = width * height * 3;
  return Array.from({ length: Math.floor(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
}

/** ground truth of one subject in the composite: its clip's alpha on its half, zeros elsewhere */
export function compositeTruth(subject: 'car' | 'person', frames: number): Uint8Array[] {
  const clip = subject === 'car' ? 'car-slide' : 'portrait-pan';
  const half = COMPOSITE.height / 2;
  const offset = subject === 'car' ? 0 : half * COMPOSITE.width;
  return decodeAlphaFrames(join(MEDIA_DIR, `${clip}.alpha.mkv`), COMPOSITE.width, half)
    .slice(0, frames)
    .map((alpha) => {
      const frame = new Uint8Array(COMPOSITE.width * COMPOSITE.height);
      frame.set(alpha, offset);
      return frame;
    });
}
