/**
 * Composites with exact alpha for the cases the shared clips lack (`npm run media:composites`):
 *   approach      the person grows from 0.55x to 1.25x, anchored at the bottom (walking toward the camera)
 *   out-of-frame  the person slides right until 45% of the frame width is past the edge
 *   two-people    the person twice at 0.7x, left and right, the second mirrored and half a clip later
 *   bystanders    the person at full size drifting across the centre, before two bystanders at 0.4x in
 *                 the lower corners (mirrored, other moments of the clip) who are NOT in the alpha:
 *                 the main subject alone is the truth, as in a speaker before an audience
 *   turning       the person at 0.9x turning once about their vertical axis: their width narrows to
 *                 0.35x side-on and widens again, mirrored while their back is to the camera (a flat
 *                 cutout turning: the silhouette changes shape from frame to frame, which a recurrent
 *                 model must follow)
 *   passers-by    the person at 0.6x crossing the frame low in it, before people walking about in
 *                 real camera footage (walkers.mp4: a square seen from above) who are NOT in the
 *                 alpha: far smaller than the subject, sharp and moving
 *   near-and-far  two people, both subjects: the person at 0.8x a little left of centre, and mirrored,
 *                 half a clip later, at 0.6x off to the right (a second person a step further back)
 * Each is portrait-pan's person (its frames and exact alpha: rembg's example cutout, MIT) moved and
 * scaled in the same way in colour and alpha, laid over a background ffmpeg generates (its
 * `mandelbrot` source, zooming: no third-party pixels) or, for passers-by, over walkers.mp4 from
 * ../shared/media (opencv-doc's vtest.avi, Apache-2.0 AND BSD-3-Clause; scaled to 640x480, its middle
 * 640x360, its 10 fps shown at 25), 640x360, 25 fps, 4 s. Written to `<dir>/<name>.mp4` (H.264 CRF
 * 14) and `<dir>/<name>.alpha.mkv` (FFV1 gray: the exact alpha). DAVIS is never used.
 * Usage: node dist/bench/matting/composites.js [dir] (default .cache/composites).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ffmpegPath } from '../../src/engine/media/binaries';
import { MEDIA_DIR } from '../engine/options';

/** read once: a global looked up in a per-pixel loop is slow under Jest (docs/testing.md) */
const { floor, min } = Math;

const W = 640;
const H = 360;
const FRAMES = 100;

export interface Placement {
  scale: number;
  /** horizontal shift of the person's centre from the frame's centre, in pixels */
  dx: number;
  mirror: boolean;
  /** which of the clip's frames this instance shows at frame i */
  frameOffset: number;
  /** in the picture but not in the exact alpha (someone in the background, not the subject) */
  bystander?: boolean;
  /** the width kept of the scaled person, about the frame's centre (a turn seen from the camera; default 1) */
  widthScale?: number;
}

export const COMPOSITES: Record<string, (t: number) => Placement[]> = {
  approach: (t) => [{ scale: 0.55 + 0.7 * t, dx: 0, mirror: false, frameOffset: 0 }],
  'out-of-frame': (t) => [{ scale: 1, dx: 0.45 * W * t, mirror: false, frameOffset: 0 }],
  'two-people': () => [
    { scale: 0.7, dx: -0.22 * W, mirror: false, frameOffset: 0 },
    { scale: 0.7, dx: 0.22 * W, mirror: true, frameOffset: FRAMES / 2 },
  ],
  bystanders: (t) => [
    { scale: 0.4, dx: -0.36 * W, mirror: true, frameOffset: 30, bystander: true },
    { scale: 0.4, dx: 0.36 * W, mirror: false, frameOffset: 60, bystander: true },
    { scale: 1, dx: (t - 0.5) * 0.12 * W, mirror: false, frameOffset: 0 },
  ],
  turning: (t) => {
    const facing = Math.cos(2 * Math.PI * t);
    return [{ scale: 0.9, dx: 0, mirror: facing < 0, frameOffset: 0, widthScale: 0.35 + 0.65 * Math.abs(facing) }];
  },
  'passers-by': (t) => [{ scale: 0.6, dx: (t - 0.5) * 0.5 * W, mirror: false, frameOffset: 0 }],
  'near-and-far': () => [
    { scale: 0.8, dx: -0.05 * W, mirror: false, frameOffset: 0 },
    { scale: 0.6, dx: 0.3 * W, mirror: true, frameOffset: FRAMES / 2 },
  ],
};

/** the composites laid over real footage instead of the generated background */
const OVER_FOOTAGE = new Set(['passers-by']);

export function decode(args: string[], frameBytes: number, frames = FRAMES): Uint8Array[] {
  const bytes = execFileSync(ffmpegPath(), ['-v', 'error', ...args, '-frames:v', String(frames), '-f', 'rawvideo', '-'], { maxBuffer: 1 << 30 });
  return Array.from({ length: floor(bytes.length / frameBytes) }, (_, i) => bytes.subarray(i * frameBytes, (i + 1) * frameBytes));
}

/**
 * lays one placed instance over `colour`/`alpha` (bilinear sampling, the same for colour and alpha).
 * A width squeezed below 1 takes that many more samples across each pixel's footprint, as a camera's
 * optics would average them, instead of skipping source pixels.
 */
export function layOver(colour: Float32Array, alpha: Float32Array, rgb: Uint8Array, a: Uint8Array, place: Placement): void {
  const xScale = place.scale * (place.widthScale ?? 1);
  const taps = Math.ceil(1 / Math.min(1, place.widthScale ?? 1));
  const left = W / 2 - (xScale * W) / 2 + place.dx;
  const top = H - place.scale * H;
  for (let y = 0; y < H; y++) {
    const sy = (y + 0.5 - top) / place.scale - 0.5;
    if (sy < 0 || sy > H - 1) continue;
    const y0 = floor(sy);
    const y1 = min(H - 1, y0 + 1);
    const fy = sy - y0;
    for (let x = 0; x < W; x++) {
      let red = 0;
      let green = 0;
      let blue = 0;
      let covered = 0;
      for (let tap = 0; tap < taps; tap++) {
        let sx = (x + (tap + 0.5) / taps - left) / xScale - 0.5;
        if (sx < 0 || sx > W - 1) continue;
        if (place.mirror) sx = W - 1 - sx;
        const x0 = floor(sx);
        const x1 = min(W - 1, x0 + 1);
        const fx = sx - x0;
        const w00 = (1 - fx) * (1 - fy);
        const w01 = fx * (1 - fy);
        const w10 = (1 - fx) * fy;
        const w11 = fx * fy;
        const i00 = y0 * W + x0;
        const i01 = y0 * W + x1;
        const i10 = y1 * W + x0;
        const i11 = y1 * W + x1;
        const w = (w00 * a[i00] + w01 * a[i01] + w10 * a[i10] + w11 * a[i11]) / 255;
        if (w <= 0) continue;
        covered += w;
        red += w * (w00 * rgb[3 * i00] + w01 * rgb[3 * i01] + w10 * rgb[3 * i10] + w11 * rgb[3 * i11]);
        green += w * (w00 * rgb[3 * i00 + 1] + w01 * rgb[3 * i01 + 1] + w10 * rgb[3 * i10 + 1] + w11 * rgb[3 * i11 + 1]);
        blue += w * (w00 * rgb[3 * i00 + 2] + w01 * rgb[3 * i01 + 2] + w10 * rgb[3 * i10 + 2] + w11 * rgb[3 * i11 + 2]);
      }
      if (covered <= 0) continue;
      const w = covered / taps;
      const p = y * W + x;
      colour[3 * p] = red / taps + (1 - w) * colour[3 * p];
      colour[3 * p + 1] = green / taps + (1 - w) * colour[3 * p + 1];
      colour[3 * p + 2] = blue / taps + (1 - w) * colour[3 * p + 2];
      alpha[p] = w + (1 - w) * alpha[p];
    }
  }
}

/**
 * Stores frame `index` of `values` (scaled in place by `scale`) as bytes in `out`, rounded and clamped by a
 * Uint8ClampedArray view: a per-element Math.round loop into a Buffer took ~20 s per 4 s clip.
 */
export function storeFrameBytes(out: Buffer, index: number, values: Float32Array, scale = 1): void {
  if (scale !== 1) for (let p = 0; p < values.length; p++) values[p] *= scale;
  new Uint8ClampedArray(out.buffer, out.byteOffset + index * values.length, values.length).set(values);
}

interface Sources {
  person: Uint8Array[];
  truth: Uint8Array[];
  background: Uint8Array[];
  /** real camera footage: passers-by in a square (walkers.mp4) */
  footage: Uint8Array[];
}

/** the frames every composite is made of; `mediaDir` holds portrait-pan and its alpha, and walkers.mp4 */
export function readSources(mediaDir = MEDIA_DIR): Sources {
  return {
    person: decode(['-i', join(mediaDir, 'portrait-pan.mp4'), '-pix_fmt', 'rgb24'], W * H * 3),
    truth: decode(['-i', join(mediaDir, 'portrait-pan.alpha.mkv'), '-pix_fmt', 'gray'], W * H),
    background: decode(['-f', 'lavfi', '-i', `mandelbrot=size=${W}x${H}:rate=25`, '-pix_fmt', 'rgb24'], W * H * 3),
    footage: decode(['-i', join(mediaDir, 'walkers.mp4'), '-vf', `scale=${W}:480,crop=${W}:${H},fps=25`, '-pix_fmt', 'rgb24'], W * H * 3),
  };
}

/** writes `<dir>/<name>.mp4` and `<dir>/<name>.alpha.mkv` */
export function writeComposite(name: string, dir: string, sources: Sources = readSources()): void {
  const { person, truth } = sources;
  const background = OVER_FOOTAGE.has(name) ? sources.footage : sources.background;
  const count = min(person.length, truth.length, background.length);
  const colourOut = Buffer.alloc(count * W * H * 3);
  const alphaOut = Buffer.alloc(count * W * H);
  for (let i = 0; i < count; i++) {
    const colour = new Float32Array(background[i]);
    const alpha = new Float32Array(W * H);
    for (const place of COMPOSITES[name](i / (count - 1))) {
      const source = (i + place.frameOffset) % count;
      layOver(colour, place.bystander ? new Float32Array(W * H) : alpha, person[source], truth[source], place);
    }
    storeFrameBytes(colourOut, i, colour);
    storeFrameBytes(alphaOut, i, alpha, 255);
  }
  const raw = (pixFmt: string) => ['-v', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', pixFmt, '-video_size', `${W}x${H}`, '-framerate', '25', '-i', '-'];
  execFileSync(ffmpegPath(), [...raw('rgb24'), '-c:v', 'libx264', '-crf', '14', '-pix_fmt', 'yuv420p', join(dir, `${name}.mp4`)], { input: colourOut });
  execFileSync(ffmpegPath(), [...raw('gray'), '-c:v', 'ffv1', join(dir, `${name}.alpha.mkv`)], { input: alphaOut });
}

if (require.main === module) {
  const dir = process.argv[2] ?? join(process.cwd(), '.cache', 'composites');
  mkdirSync(dir, { recursive: true });
  const sources = readSources();
  for (const name of Object.keys(COMPOSITES)) {
    writeComposite(name, dir, sources);
    console.log(`${join(dir, name)}.mp4 + .alpha.mkv`);
  }
}
