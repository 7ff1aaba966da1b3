import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { CHECKSUM_SUFFIX, markUsed } from '../runtime/model-file-cache';

/**
 * The input geometries whose RVM files the cache keeps. Each geometry (a video's aspect ratio at a
 * profile's size) is about 35 MB of converted, quantised and split models, and any client could add
 * one per aspect ratio it sends (about 1,000 `light` and 1,600 `human` geometries exist): the cache
 * grew without end on the disk storage and the embedded database share. Those used least recently
 * go first; the geometry being opened is never removed, even where its files are another user's
 * and cannot be marked used. 32 of them
 * (about 1.1 GB) hold every geometry a busy deployment meets daily (16:9 and 9:16, 4:3, letterboxed
 * pictures at both profiles) with room to spare; one evicted is converted again in seconds.
 */
export const RVM_GEOMETRIES_KEPT = 32;

/** a file of one geometry: `rvm-<H>x<W>-d<ratio>-r<revision>[-<variant>].onnx` */
const GEOMETRY_FILE = /^rvm-(\d+x\d+-d[\d.]+)-r\d+.*\.onnx$/;
const MODEL_FILE = /\.onnx$/;
/** a write that never finished (writeDurably's temporary file) or a build's lock, left by a failed write or a killed process */
const UNFINISHED_WRITE = /\.(tmp|building)$/;
const UNFINISHED_WRITE_AGE_MS = 3600_000;
/**
 * A model file nobody opened for this long is removed, whatever model it is: the files of an older
 * converter or quantiser revision, which nothing opens after an upgrade (20-35 MB a geometry each
 * time, 440 MB for ISNet's), and the float32 models that the int8 ones were built from (ISNet's
 * 175 MB at each size), read again only to build an int8 model that is missing.
 */
export const UNUSED_MODEL_AGE_MS = 30 * 24 * 3600_000;

/**
 * Marks `inUse` (the model files an RVM is opened on) as used now, then removes the files of the
 * geometries beyond the `kept` most recently used (never `inUse`'s), model files unused for
 * UNUSED_MODEL_AGE_MS, checksums whose model is gone, and unfinished writes over an hour old.
 */
export function keepRecentGeometries(cacheDir: string, inUse: readonly string[], kept = RVM_GEOMETRIES_KEPT, now = new Date()): void {
  for (const path of inUse) markUsed(path, now);
  try {
    removeStale(cacheDir, new Set(inUse.map((path) => basename(path))), kept, now);
  } catch {
    // best effort: a cache this process may read but not change (prepared ahead, another user's) still serves
  }
}

function removeStale(cacheDir: string, inUse: ReadonlySet<string>, kept: number, now: Date): void {
  const lastUse = new Map<string, number>();
  const files: Array<{ path: string; geometry: string }> = [];
  const names = readdirSync(cacheDir);
  const present = new Set(names);
  const ageOf = (path: string) => now.getTime() - (modifiedAt(path) ?? now.getTime());
  for (const name of names) {
    const path = join(cacheDir, name);
    if (UNFINISHED_WRITE.test(name) || (name.endsWith(CHECKSUM_SUFFIX) && !present.has(name.slice(0, -CHECKSUM_SUFFIX.length)))) {
      if (ageOf(path) > UNFINISHED_WRITE_AGE_MS) removeQuietly(path);
      continue;
    }
    if (!MODEL_FILE.test(name)) continue;
    if (!inUse.has(name) && ageOf(path) > UNUSED_MODEL_AGE_MS) {
      removeModel(path);
      continue;
    }
    const geometry = GEOMETRY_FILE.exec(name)?.[1];
    if (!geometry) continue;
    files.push({ path, geometry });
    const used = inUse.has(name) ? Infinity : (modifiedAt(path) ?? 0);
    lastUse.set(geometry, Math.max(lastUse.get(geometry) ?? 0, used));
  }
  const stale = new Set([...lastUse.entries()].sort((a, b) => b[1] - a[1]).slice(kept).map(([geometry]) => geometry));
  for (const file of files) if (stale.has(file.geometry)) removeModel(file.path);
}

function modifiedAt(path: string): number | null {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null; // removed meanwhile by another process
  }
}

/** a model and its checksum */
function removeModel(path: string): void {
  removeQuietly(path);
  removeQuietly(`${path}${CHECKSUM_SUFFIX}`);
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // removed meanwhile by another process
  }
}
