/** Benchmark selection from the environment, so a full run stays tractable on a small machine. */
import { join } from 'node:path';
import { MODEL_NAMES, ModelName, OUTPUT_FORMATS, OutputFormat } from '../../src/engine/types';

/** the shared test media, beside the project root (npm runs scripts from the root) */
export const MEDIA_DIR = process.env.BENCH_MEDIA_DIR ?? join(process.cwd(), '..', 'shared', 'media');

export const SPEED_CLIPS = ['portrait-pan', 'walkers'] as const;
export const QUALITY_CLIPS = ['portrait-pan', 'car-slide'] as const;
export type ClipName = (typeof SPEED_CLIPS)[number] | (typeof QUALITY_CLIPS)[number];

export type BenchSection = 'speed' | 'quality' | 'peer' | 'memory';
const DEFAULT_SECTIONS: BenchSection[] = ['speed', 'quality', 'peer'];

export interface BenchOptions {
  models: ModelName[];
  formats: OutputFormat[];
  speedClips: ClipName[];
  qualityClips: ClipName[];
  /** seconds of each clip to process (default: whole clips) */
  previewSeconds?: number;
  /** timing runs per case; the fastest is kept (the machine is shared and noisy) */
  repeat: number;
  sections: Set<BenchSection>;
  /** frames of portrait-pan the peer library is run on (it is slow: seconds per frame) */
  peerFrames: number;
  cacheDir: string;
  /** the memory section: seconds of the short and long 1080p clips */
  memorySeconds: [number, number];
}

export function parseBenchOptions(env: NodeJS.ProcessEnv): BenchOptions {
  const clips = pick(env.BENCH_CLIPS, [...new Set<ClipName>([...SPEED_CLIPS, ...QUALITY_CLIPS])], 'BENCH_CLIPS');
  return {
    models: pick(env.BENCH_MODELS, [...MODEL_NAMES], 'BENCH_MODELS'),
    formats: pick(env.BENCH_FORMATS, [...OUTPUT_FORMATS], 'BENCH_FORMATS'),
    speedClips: SPEED_CLIPS.filter((clip) => clips.includes(clip)),
    qualityClips: QUALITY_CLIPS.filter((clip) => clips.includes(clip)),
    previewSeconds: env.BENCH_PREVIEW ? positive(env.BENCH_PREVIEW, 'BENCH_PREVIEW') : undefined,
    repeat: env.BENCH_REPEAT ? Math.max(1, Math.floor(positive(env.BENCH_REPEAT, 'BENCH_REPEAT'))) : 2,
    sections: new Set(env.BENCH_SECTIONS ? pick(env.BENCH_SECTIONS, [...DEFAULT_SECTIONS, 'memory'], 'BENCH_SECTIONS') : DEFAULT_SECTIONS),
    peerFrames: env.BENCH_PEER_FRAMES ? Math.floor(positive(env.BENCH_PEER_FRAMES, 'BENCH_PEER_FRAMES')) : 5,
    cacheDir: env.BENCH_CACHE_DIR ?? env.MODEL_CACHE_DIR ?? join(process.cwd(), '.cache', 'models'),
    memorySeconds: [10, env.BENCH_MEMORY_SECONDS ? positive(env.BENCH_MEMORY_SECONDS, 'BENCH_MEMORY_SECONDS') : 60],
  };
}

export function clipPath(clip: ClipName): string {
  return join(MEDIA_DIR, `${clip}.mp4`);
}

export function truthPath(clip: ClipName): string {
  return join(MEDIA_DIR, `${clip}.alpha.mkv`);
}

/** a comma-separated list from the environment, each entry checked; all of `known` when unset */
function pick<T extends string>(value: string | undefined, known: readonly T[], name: string): T[] {
  if (!value) return [...known];
  const wanted = value.split(',').map((entry) => entry.trim()).filter(Boolean);
  const unknown = wanted.filter((entry) => !known.includes(entry as T));
  if (unknown.length) throw new Error(`${name}: unknown ${unknown.join(', ')} (known: ${known.join(', ')})`);
  return wanted as T[];
}

function positive(value: string, name: string): number {
  const number = Number(value);
  if (!(number > 0)) throw new Error(`${name} must be a positive number, got ${value}`);
  return number;
}
