import { readdirSync, statSync, unlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The input geometries whose RVM files the cache keeps. Each geometry (a video's aspect ratio at a
 * profile's size) is about 35 MB of converted, quantised and split models, and any client could add
 * one per aspect ratio it sends (about 1,000 `light` and 1,600 `human` geometries exist): the cache
 * grew without end on the disk storage and the embedded database share. Those used least recently
 * go first; a geometry in use was touched as it was opened, so it is among the newest. 32 of them
 * (about 1.1 GB) hold every geometry a busy deployment meets daily (16:9 and 9:16, 4:3, letterboxed
 * pictures at both profiles) with room to spare; one evicted is converted again in seconds.
 */
export const RVM_GEOMETRIES_KEPT = 32;

/** a file of one geometry: `rvm-<H>x<W>-d<ratio>-r<revision>[-<variant>].onnx` */
const GEOMETRY_FILE = /^rvm-(\d+x\d+-d[\d.]+)-r\d+.*\.onnx$/;
/** a write that never finished (writeAtomically's temporary file), left by a failed write or a killed process */
const UNFINISHED_WRITE = /\.tmp$/;
const UNFINISHED_WRITE_AGE_MS = 3600_000;

/**
 * Marks `inUse` (the model files an RVM is opened on) as used now, then removes the files of the
 * geometries beyond the `kept` most recently used, and unfinished writes over an hour old.
 */
export function keepRecentGeometries(cacheDir: string, inUse: readonly string[], kept = RVM_GEOMETRIES_KEPT, now = new Date()): void {
  try {
    for (const path of inUse) utimesSync(path, now, now);
    removeStale(cacheDir, kept, now);
  } catch {
    // best effort: a cache this process may read but not change (prepared ahead, another user's) still serves
  }
}

function removeStale(cacheDir: string, kept: number, now: Date): void {
  const lastUse = new Map<string, number>();
  const files: Array<{ path: string; geometry: string }> = [];
  for (const name of readdirSync(cacheDir)) {
    const path = join(cacheDir, name);
    const modified = modifiedAt(path);
    if (modified === null) continue;
    if (UNFINISHED_WRITE.test(name)) {
      if (now.getTime() - modified > UNFINISHED_WRITE_AGE_MS) removeQuietly(path);
      continue;
    }
    const geometry = GEOMETRY_FILE.exec(name)?.[1];
    if (!geometry) continue;
    files.push({ path, geometry });
    lastUse.set(geometry, Math.max(lastUse.get(geometry) ?? 0, modified));
  }
  const stale = new Set([...lastUse.entries()].sort((a, b) => b[1] - a[1]).slice(kept).map(([geometry]) => geometry));
  for (const file of files) if (stale.has(file.geometry)) removeQuietly(file.path);
}

function modifiedAt(path: string): number | null {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null; // removed meanwhile by another process
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // removed meanwhile by another process
  }
}
