/**
 * Other people before other backgrounds (`npm run media:davis-composites`): each DAVIS people
 * sequence's subject (their pixels under the hand-made mask, so the mask stays the exact truth) laid
 * over another background, frame for frame:
 *   <person>-on-fractal         ffmpeg's zooming `mandelbrot` (busy, no subject of its own)
 *   <person>-on-car-roundabout  DAVIS car-roundabout: a street, with the car its camera follows
 *   <person>-on-bmx-trees       DAVIS bmx-trees: a wood, with the rider its camera follows (a person
 *                               who is NOT in the truth)
 * The own composites (composites.ts) all show portrait-pan's one person; these show four others
 * (a dancer, a skater, a person on a swing, one walking with a kite board), in real motion. The
 * last two backgrounds hold a subject of their own that a viewer may well take for the video's
 * subject too: read their scores as what the main-subject rule does with two subjects, not as a
 * floor (but for one: people come before vehicles, davis-floors.spec.ts). 854x480 at 24 fps, as
 * long as the shorter clip. Written to `<dir>/<name>.mp4` (H.264 CRF 14) and `<dir>/<name>.alpha.mkv`
 * (FFV1 gray), read from ../shared/media/davis at run time and
 * written under .cache (never into the repository: DAVIS is for evaluation, CC BY-NC 4.0; its
 * README). Score them with bench:matting (BENCH_CLIPS takes the paths without the extension).
 * Usage: node dist/bench/matting/davis-composites.js [dir] (default .cache/davis-composites).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ffmpegPath } from '../../src/engine/media/binaries';
import { MEDIA_DIR } from '../engine/options';

const DAVIS_DIR = join(MEDIA_DIR, 'davis');
const SIZE = '854x480';
const RATE = 24;

/** the people sequences and their frame counts (davis/README.md) */
const PEOPLE: Record<string, number> = { 'breakdance-flare': 71, 'kite-walk': 80, rollerblade: 35, swing: 60 };
/** DAVIS backgrounds and their frame counts; `fractal` is generated */
const BACKGROUNDS: Record<string, number> = { fractal: Infinity, 'car-roundabout': 75, 'bmx-trees': 80 };

function backgroundInput(background: string): string[] {
  return background === 'fractal' ? ['-f', 'lavfi', '-i', `mandelbrot=size=${SIZE}:rate=${RATE}`] : ['-i', join(DAVIS_DIR, `${background}.mp4`)];
}

/** writes `<dir>/<person>-on-<background>.mp4` and its `.alpha.mkv`; returns the path without extension */
export function writeDavisComposite(person: string, background: string, dir: string): string {
  const frames = String(Math.min(PEOPLE[person], BACKGROUNDS[background]));
  const out = join(dir, `${person}-on-${background}`);
  const sequence = join(DAVIS_DIR, person);
  const layOver = '[1:v]format=gray[mask];[0:v][mask]alphamerge[person];[2:v][person]overlay=0:0,format=yuv420p[out]';
  const quiet = ['-v', 'error', '-y'];
  execFileSync(ffmpegPath(), [...quiet, '-i', `${sequence}.mp4`, '-i', `${sequence}.alpha.mkv`, ...backgroundInput(background), '-filter_complex', layOver, '-map', '[out]', '-frames:v', frames, '-c:v', 'libx264', '-crf', '14', `${out}.mp4`]);
  execFileSync(ffmpegPath(), [...quiet, '-i', `${sequence}.alpha.mkv`, '-frames:v', frames, '-c:v', 'ffv1', '-pix_fmt', 'gray', `${out}.alpha.mkv`]);
  return out;
}

if (require.main === module) {
  const dir = process.argv[2] ?? join(process.cwd(), '.cache', 'davis-composites');
  mkdirSync(dir, { recursive: true });
  for (const person of Object.keys(PEOPLE)) for (const background of Object.keys(BACKGROUNDS)) console.log(`${writeDavisComposite(person, background, dir)}.mp4 + .alpha.mkv`);
}
