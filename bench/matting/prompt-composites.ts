/**
 * Composites with exact alpha for `pro`'s prompts with attributes (test/engine/pro/pro-prompts.spec.ts
 * and test/e2e/pro-prompt.e2e.spec.ts make them once under .cache/; `node
 * dist/bench/matting/prompt-composites.js [dir]` writes them too). 640x360, 25 fps, 60 frames, laid
 * over car-slide's first 60 frames (a panning building photo, opencv-doc, Apache-2.0 AND
 * BSD-3-Clause, with its car, rembg example, MIT; a real photo, since over a generated pattern the
 * detector scores these subjects under its start threshold), laid out as in composites.ts:
 *
 *   red-blue        portrait-pan's person (rembg example, MIT) twice at 0.8x, the dark jacket
 *                   recoloured red on one copy and blue on the other (the second mirrored, 30 frames
 *                   later in the source clip): side by side for 20 frames, then they walk across and
 *                   swap sides, the red one in front (drawn last) where they overlap
 *   two-dogs        DAVIS's dog twice, at 0.8x on the left and 0.5x on the right (the second
 *                   mirrored): its hand-made mask is the composite's alpha, so the alpha is exact by
 *                   construction. DAVIS is evaluation-only (CC BY-NC 4.0): it is read from
 *                   ../shared/media/davis at test time and the composite stays in .cache, never in
 *                   the repository
 *   person-car      car-slide's own car (subject 0) and portrait-pan's person at 0.8x on the right
 *
 * The recolouring, exact and deterministic: in each source frame, the person's pixels below the
 * top 35% of its height (under the cap and head) that are dark and nearly grey (CIELAB L* < 40 and
 * chroma < 20: the black jacket) get lightness L* + 18, chroma 55 and hue 35° (red) or 290° (blue);
 * the alpha is not touched. Written per clip: `<name>.mp4` (H.264 CRF 14), `<name>.alpha.mkv` (the
 * union) and `<name>.<k>.alpha.mkv` for each subject k (what of it is visible: the subjects drawn
 * after it are cut out of it), FFV1 gray.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { extname, join } from 'node:path';
import { ffmpegPath } from '../../src/engine/media/binaries';
import { labToRgb, rgbToLab } from '../../src/engine/models/pro/colour-names';
import { MEDIA_DIR } from '../engine/options';
import { decode, layOver, Placement, storeFrameBytes } from './composites';

/** read once: a global looked up in a per-pixel loop is slow under Jest (docs/testing.md) */
const { ceil, cos, floor, hypot, max, min, sin } = Math;

export const W = 640;
export const H = 360;
export const PROMPT_FRAMES = 60;
/** bumped whenever the clips change, so a stale cache is not reused */
const VERSION = 3;

type SourceName = 'person-red' | 'person-blue' | 'person' | 'dog';
interface Layer extends Placement {
  source: SourceName;
}
export interface PromptComposite {
  /**
   * what each subject is, in drawing order (the last is in front); with `carIsSubject`, subject 0
   * is the background clip's own car
   */
  subjects: string[];
  carIsSubject?: boolean;
  layers: (t: number, frame: number) => Layer[];
}

const SWAP_START = 20;
const lerp = (a: number, b: number, t: number) => a + (b - a) * min(1, max(0, t));

export const PROMPT_COMPOSITES: Record<string, PromptComposite> = {
  'red-blue': {
    subjects: ['blue person', 'red person'],
    layers: (_t, i) => {
      const walk = (i - SWAP_START) / (PROMPT_FRAMES - 1 - SWAP_START);
      return [
        { source: 'person-blue', scale: 0.8, dx: lerp(0.25, -0.25, walk) * W, mirror: true, frameOffset: 30 },
        { source: 'person-red', scale: 0.8, dx: lerp(-0.25, 0.25, walk) * W, mirror: false, frameOffset: 0 },
      ];
    },
  },
  'two-dogs': {
    subjects: ['big dog', 'small dog'],
    layers: () => [
      { source: 'dog', scale: 0.8, dx: -0.2 * W, mirror: false, frameOffset: 0 },
      { source: 'dog', scale: 0.5, dx: 0.3 * W, mirror: true, frameOffset: 20 },
    ],
  },
  'person-car': {
    subjects: ['car', 'person'],
    carIsSubject: true,
    layers: () => [{ source: 'person', scale: 0.8, dx: 0.3 * W, mirror: false, frameOffset: 0 }],
  },
};

/** the dark, nearly grey pixels of the person below its head, recoloured (see the header) */
export function recolourClothing(rgb: Uint8Array, alpha: Uint8Array, hue: number): Uint8Array {
  const out = Uint8Array.from(rgb);
  let top = H;
  for (let i = 0; i < alpha.length && top === H; i++) if (alpha[i] >= 128) top = floor(i / W);
  const from = top + 0.35 * (H - top);
  const radians = (hue * Math.PI) / 180;
  for (let y = ceil(from); y < H; y++) {
    for (let x = 0, p = y * W; x < W; x++, p++) {
      if (alpha[p] === 0) continue;
      const lab = rgbToLab(rgb[3 * p], rgb[3 * p + 1], rgb[3 * p + 2]);
      if (lab.l >= 40 || hypot(lab.a, lab.b) >= 20) continue;
      out.set(labToRgb({ l: lab.l + 18, a: 55 * cos(radians), b: 55 * sin(radians) }), 3 * p);
    }
  }
  return out;
}

interface Footage {
  rgb: Uint8Array[];
  alpha: Uint8Array[];
}

function footage(video: string, alpha: string): Footage {
  const scale = `scale=${W}:${H}:flags=bilinear`;
  return {
    rgb: decode(['-i', video, '-vf', scale, '-pix_fmt', 'rgb24'], W * H * 3, PROMPT_FRAMES),
    alpha: decode(['-i', alpha, '-vf', scale, '-pix_fmt', 'gray'], W * H, PROMPT_FRAMES),
  };
}

const sourcesCache = new Map<SourceName, Footage>();
function source(name: SourceName, mediaDir: string): Footage {
  let found = sourcesCache.get(name);
  if (found) return found;
  if (name === 'dog') found = footage(join(mediaDir, 'davis', 'dog.mp4'), join(mediaDir, 'davis', 'dog.alpha.mkv'));
  else {
    const person = footage(join(mediaDir, 'portrait-pan.mp4'), join(mediaDir, 'portrait-pan.alpha.mkv'));
    const hue = name === 'person-red' ? 35 : name === 'person-blue' ? 290 : undefined;
    found = hue === undefined ? person : { rgb: person.rgb.map((rgb, i) => recolourClothing(rgb, person.alpha[i], hue)), alpha: person.alpha };
  }
  sourcesCache.set(name, found);
  return found;
}

export interface PromptCompositeFiles {
  video: string;
  /** each subject's visible alpha, in `subjects` order */
  truths: string[];
}

export function promptCompositePaths(name: string, dir: string): PromptCompositeFiles {
  const stem = join(dir, `${name}.v${VERSION}`);
  return { video: `${stem}.mp4`, truths: PROMPT_COMPOSITES[name].subjects.map((_, k) => `${stem}.${k}.alpha.mkv`) };
}

/** writes the clip unless it is already there; returns its paths */
export function writePromptComposite(name: string, dir: string, mediaDir = MEDIA_DIR): PromptCompositeFiles {
  const paths = promptCompositePaths(name, dir);
  if (existsSync(paths.video) && paths.truths.every((p) => existsSync(p))) return paths;
  mkdirSync(dir, { recursive: true });
  const composite = PROMPT_COMPOSITES[name];
  const background = footage(join(mediaDir, 'car-slide.mp4'), join(mediaDir, 'car-slide.alpha.mkv'));
  const colourOut = Buffer.alloc(PROMPT_FRAMES * W * H * 3);
  const truthOut = composite.subjects.map(() => Buffer.alloc(PROMPT_FRAMES * W * H));
  const unionOut = Buffer.alloc(PROMPT_FRAMES * W * H);
  for (let i = 0; i < PROMPT_FRAMES; i++) {
    const colour = new Float32Array(background.rgb[i]);
    const car = Float32Array.from(background.alpha[i], (v) => v / 255);
    const union = composite.carIsSubject ? Float32Array.from(car) : new Float32Array(W * H);
    const layers = composite.layers(i / (PROMPT_FRAMES - 1), i);
    const placed = layers.map((layer) => {
      const footageOf = source(layer.source, mediaDir);
      const k = (i + layer.frameOffset) % footageOf.rgb.length;
      layOver(colour, union, footageOf.rgb[k], footageOf.alpha[k], layer);
      const alpha = new Float32Array(W * H);
      layOver(new Float32Array(W * H * 3), alpha, footageOf.rgb[k], footageOf.alpha[k], layer);
      return alpha;
    });
    const own = composite.carIsSubject ? [car, ...placed] : placed;
    own.forEach((alpha, k) => {
      const visibleAlpha = new Float32Array(W * H);
      for (let p = 0; p < alpha.length; p++) {
        let visible = alpha[p];
        for (let j = k + 1; j < own.length; j++) visible *= 1 - own[j][p];
        visibleAlpha[p] = visible;
      }
      storeFrameBytes(truthOut[k], i, visibleAlpha, 255);
    });
    storeFrameBytes(colourOut, i, colour);
    storeFrameBytes(unionOut, i, union, 255);
  }
  const raw = (pixFmt: string) => ['-v', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', pixFmt, '-video_size', `${W}x${H}`, '-framerate', '25', '-i', '-'];
  // the video last: where it is, its truths are whole (specs in other Jest workers build the same clips at once)
  truthOut.forEach((truth, k) => encodeAtomically([...raw('gray'), '-c:v', 'ffv1'], paths.truths[k], truth));
  encodeAtomically([...raw('gray'), '-c:v', 'ffv1'], paths.video.replace(/\.mp4$/, '.alpha.mkv'), unionOut);
  encodeAtomically([...raw('rgb24'), '-c:v', 'libx264', '-crf', '14', '-pix_fmt', 'yuv420p'], paths.video, colourOut);
  return paths;
}

/** ffmpeg writes a file of this process's, renamed into place once whole: a reader never finds it half written */
function encodeAtomically(args: string[], out: string, input: Buffer): void {
  const extension = extname(out);
  const partial = `${out.slice(0, -extension.length)}.partial-${process.pid}${extension}`;
  execFileSync(ffmpegPath(), [...args, partial], { input });
  renameSync(partial, out);
}

if (require.main === module) {
  const dir = process.argv[2] ?? join(process.cwd(), '.cache', 'prompt-composites');
  for (const name of Object.keys(PROMPT_COMPOSITES)) console.log(writePromptComposite(name, dir).video);
}
