/**
 * Composites with exact alpha for the cases the shared clips lack (`npm run media:composites`):
 *   approach      the person grows from 0.55x to 1.25x, anchored at the bottom (walking toward the camera)
 *   out-of-frame  the person slides right until 45% of the frame width is past the edge
 *   two-people    the person twice at 0.7x, left and right, the second mirrored and half a clip later
 * Each is portrait-pan's person (its frames and exact alpha: rembg's example cutout, MIT) moved and
 * scaled in the same way in colour and alpha, laid over a background ffmpeg generates (its
 * `mandelbrot` source, zooming: no third-party pixels), 640x360, 25 fps, 4 s. Written to
 * `<dir>/<name>.mp4` (H.264 CRF 14) and `<dir>/<name>.alpha.mkv` (FFV1 gray: the exact alpha).
 * DAVIS is never used. Usage: node dist/bench/matting/composites.js [dir] (default .cache/composites).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ffmpegPath } from '../../src/engine/media/binaries';
import { MEDIA_DIR } from '../engine/options';

const W = 640;
const H = 360;
const FRAMES = 100;

interface Placement {
  scale: number;
  /** horizontal shift of the person's centre from the frame's centre, in pixels */
  dx: number;
  mirror: boolean;
  /** which of the clip's frames this instance shows at frame i */
  frameOffset: number;
}

export const COMPOSITES: Record<string, (t: number) => Placement[]> = {
  approach: (t) => [{ scale: 0.55 + 0.7 * t, dx: 0, mirror: false, frameOffset: 0 }],
  'out-of-frame': (t) => [{ scale: 1, dx: 0.45 * W * t, mirror: false, frameOffset: 0 }],
  'two-people': () => [
    { scale: 0.7, dx: -0.22 * W, mirror: false, frameOffset: 0 },
    { scale: 0.7, dx: 0.22 * W, mirror: true, frameOffset: FRAMES / 2 },
  ],
};

function decode(args: string[], frameBytes: number): Uint8Array[] {
  const bytes = execFileSync(ffmpegPath(), ['-v', 'error', ...args, '-frames:v', String(FRAMES), '-f', 'rawvideo', '-'], { maxBuffer: 1 << 30 });
  return Array.from({ length: Math.floor(bytes.length / frameBytes) }, (_, i) => bytes.subarray(i * frameBytes, (i + 1) * frameBytes));
}

/** lays one placed instance over `colour`/`alpha` (bilinear sampling, the same for colour and alpha) */
function layOver(colour: Float32Array, alpha: Float32Array, rgb: Uint8Array, a: Uint8Array, place: Placement): void {
  const left = W / 2 - (place.scale * W) / 2 + place.dx;
  const top = H - place.scale * H;
  for (let y = 0; y < H; y++) {
    const sy = (y + 0.5 - top) / place.scale - 0.5;
    if (sy < 0 || sy > H - 1) continue;
    const y0 = Math.floor(sy);
    const y1 = Math.min(H - 1, y0 + 1);
    const fy = sy - y0;
    for (let x = 0; x < W; x++) {
      let sx = (x + 0.5 - left) / place.scale - 0.5;
      if (sx < 0 || sx > W - 1) continue;
      if (place.mirror) sx = W - 1 - sx;
      const x0 = Math.floor(sx);
      const x1 = Math.min(W - 1, x0 + 1);
      const fx = sx - x0;
      const weights = [(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy];
      const at = [y0 * W + x0, y0 * W + x1, y1 * W + x0, y1 * W + x1];
      let value = 0;
      for (let k = 0; k < 4; k++) value += weights[k] * a[at[k]];
      const w = value / 255;
      if (w <= 0) continue;
      const p = y * W + x;
      for (let c = 0; c < 3; c++) {
        let sample = 0;
        for (let k = 0; k < 4; k++) sample += weights[k] * rgb[3 * at[k] + c];
        colour[3 * p + c] = w * sample + (1 - w) * colour[3 * p + c];
      }
      alpha[p] = w + (1 - w) * alpha[p];
    }
  }
}

export function writeComposite(name: string, dir: string): void {
  const person = decode(['-i', join(MEDIA_DIR, 'portrait-pan.mp4'), '-pix_fmt', 'rgb24'], W * H * 3);
  const truth = decode(['-i', join(MEDIA_DIR, 'portrait-pan.alpha.mkv'), '-pix_fmt', 'gray'], W * H);
  const background = decode(['-f', 'lavfi', '-i', `mandelbrot=size=${W}x${H}:rate=25`, '-pix_fmt', 'rgb24'], W * H * 3);
  const count = Math.min(person.length, truth.length, background.length);
  const colourOut = Buffer.alloc(count * W * H * 3);
  const alphaOut = Buffer.alloc(count * W * H);
  for (let i = 0; i < count; i++) {
    const colour = Float32Array.from(background[i]);
    const alpha = new Float32Array(W * H);
    for (const place of COMPOSITES[name](i / (count - 1))) {
      const source = (i + place.frameOffset) % count;
      layOver(colour, alpha, person[source], truth[source], place);
    }
    for (let p = 0; p < colour.length; p++) colourOut[i * W * H * 3 + p] = Math.round(colour[p]);
    for (let p = 0; p < alpha.length; p++) alphaOut[i * W * H + p] = Math.round(alpha[p] * 255);
  }
  const raw = (pixFmt: string) => ['-v', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', pixFmt, '-video_size', `${W}x${H}`, '-framerate', '25', '-i', '-'];
  execFileSync(ffmpegPath(), [...raw('rgb24'), '-c:v', 'libx264', '-crf', '14', '-pix_fmt', 'yuv420p', join(dir, `${name}.mp4`)], { input: colourOut });
  execFileSync(ffmpegPath(), [...raw('gray'), '-c:v', 'ffv1', join(dir, `${name}.alpha.mkv`)], { input: alphaOut });
}

if (require.main === module) {
  const dir = process.argv[2] ?? join(process.cwd(), '.cache', 'composites');
  mkdirSync(dir, { recursive: true });
  for (const name of Object.keys(COMPOSITES)) {
    writeComposite(name, dir);
    console.log(`${join(dir, name)}.mp4 + .alpha.mkv`);
  }
}
