/**
 * The converted models on disk (the cache directory): each written through a temporary file,
 * flushed to the disk before and after its rename, with its checksum beside it; reused only while
 * its bytes still match the checksum. A file cut short (a full disk, a crash before the disk had
 * it) failed every job of its model until someone deleted it; one with damaged weights loaded and
 * gave wrong mattes without an error.
 */
import { createHash, randomUUID } from 'node:crypto';
import { accessSync, closeSync, constants, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';

/** `<model>.sha256` beside each model: its digest and length as written */
export const CHECKSUM_SUFFIX = '.sha256';

/** the models found whole in this process, by path: the file's inode and size then (a new write is a new inode) */
const foundWhole = new Map<string, string>();

/**
 * The model at `target`: the cached file where it is whole (isCachedModelFile), else built by
 * `build` and written there (writeModelFile). Marked as used now (rvm-cache.ts keeps the models
 * used recently).
 */
export function cachedModelFile(target: string, build: () => Uint8Array): string {
  return cachedModelFiles([target], () => [build()])[0];
}

/**
 * Models made together (RVM's stages, split from one model): the cached files where every one is
 * whole, else all of them built by `build` (in the order of `targets`) and written, under the
 * first one's lock.
 */
export function cachedModelFiles(targets: string[], build: () => Uint8Array[]): string[] {
  const cached = () => targets.every((target) => isCachedModelFile(target) || preparedAheadBeforeChecksums(target));
  if (cached()) targets.forEach((target) => markUsed(target));
  else
    buildingAlone(targets[0], () => {
      if (cached()) return; // another process built them meanwhile
      build().forEach((bytes, index) => writeModelFile(targets[index], bytes));
    });
  return targets;
}

/** `<model>.building`: a process converting the model holds it (buildingAlone) */
const BUILD_LOCK_SUFFIX = '.building';
/**
 * a lock of another host's (a cache shared between machines) this old is a dead build's: a conversion
 * takes seconds, ISNet's int8 half a minute under Jest on a slow machine
 */
const BUILD_LOCK_STALE_MS = 5 * 60_000;
const BUILD_LOCK_POLL_MS = 250;

/**
 * Runs `build` as the only process building `target` on this cache: the others wait for it, then
 * find the model built. Every process of a cluster's first start converted every model at once
 * (three ISNet conversions took 26 s and 572-659 MB each, against 10 s alone). A lock left by a
 * process that died is taken over: one of this host whose process is gone, another host's older
 * than BUILD_LOCK_STALE_MS. Where no lock can be made (a cache this process may not write) the
 * build goes on alone.
 */
function buildingAlone(target: string, build: () => void): void {
  const lock = `${target}${BUILD_LOCK_SUFFIX}`;
  // this build's own mark: a lock is released (or taken over) only while it still holds the mark read
  const holder = `${hostname()} ${process.pid} ${randomUUID()}`;
  for (;;) {
    const taken = takeLock(lock, holder);
    if (taken === 'unavailable') {
      build();
      return;
    }
    if (taken === 'taken') {
      try {
        build();
      } finally {
        removeIfHeldBy(lock, holder);
      }
      return;
    }
    sleepSync(BUILD_LOCK_POLL_MS);
  }
}

function takeLock(lock: string, holder: string): 'taken' | 'held' | 'unavailable' {
  try {
    mkdirSync(dirname(lock), { recursive: true });
    writeFileSync(lock, `${holder}\n`, { flag: 'wx' });
    return 'taken';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return 'unavailable';
  }
  const stale = staleHolder(lock);
  if (stale !== undefined) removeIfHeldBy(lock, stale);
  return 'held'; // taken on the next turn, by this process or another
}

/**
 * The holder written in a lock whose build is dead, else undefined: on this host, a process that is
 * gone (however long a live one takes); another host's (a cache shared between machines), a lock
 * older than BUILD_LOCK_STALE_MS.
 */
function staleHolder(lock: string): string | undefined {
  let holder: string;
  let writtenAt: number;
  try {
    holder = readFileSync(lock, 'utf8').trim();
    writtenAt = statSync(lock).mtimeMs;
  } catch {
    return undefined; // released meanwhile
  }
  const [host, pid] = holder.split(' ');
  const dead = host === hostname() ? !processAlive(Number(pid)) : Date.now() - writtenAt > BUILD_LOCK_STALE_MS;
  return dead ? holder : undefined;
}

function removeIfHeldBy(lock: string, holder: string): void {
  try {
    if (readFileSync(lock, 'utf8').trim() === holder) rmSync(lock, { force: true });
  } catch {
    // removed meanwhile
  }
}

/**
 * A model an earlier version cached, without a checksum, in a cache this process may not write (one
 * prepared ahead and mounted read-only): used as it is, since it cannot be built there. Where the
 * cache can be written such a file is built again once, with its checksum.
 */
function preparedAheadBeforeChecksums(target: string): boolean {
  if (existsSync(`${target}${CHECKSUM_SUFFIX}`) || !existsSync(target)) return false;
  try {
    accessSync(dirname(target), constants.W_OK);
    return false;
  } catch {
    return true;
  }
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

/** the engine's thread waits, as it would have while converting the model itself */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Whether `target` holds the model as it was written: its checksum file is there and matches its
 * bytes. Read and hashed once per process (about 0.1 s for ISNet's 88 MB), then while the file
 * stays the same file.
 */
export function isCachedModelFile(target: string): boolean {
  const identity = identityOf(target);
  if (identity === undefined) return false;
  if (foundWhole.get(target) === identity) return true;
  try {
    if (readFileSync(`${target}${CHECKSUM_SUFFIX}`, 'utf8').trim() !== checksumOf(readFileSync(target))) return false;
  } catch {
    return false; // no checksum (a write that did not finish, or a file from before checksums), or removed meanwhile
  }
  foundWhole.set(target, identity);
  return true;
}

/** Writes a model and then its checksum, each durably (writeDurably), so that a reader never takes a part for the whole. */
export function writeModelFile(target: string, bytes: Uint8Array): void {
  writeDurably(target, bytes);
  writeDurably(`${target}${CHECKSUM_SUFFIX}`, Buffer.from(`${checksumOf(bytes)}\n`));
}

/**
 * Writes through a temporary file renamed into place, flushed to the disk before the rename and
 * the directory after it: a crash or power cut leaves the old file or the new one, never a file
 * the rename promised but whose blocks the disk never had.
 */
function writeDurably(target: string, bytes: Uint8Array): void {
  const directory = dirname(target);
  mkdirSync(directory, { recursive: true });
  const temporary = `${target}.${process.pid}.${Date.now()}.tmp`;
  try {
    const file = openSync(temporary, 'w');
    try {
      writeFileSync(file, bytes);
      fsyncSync(file);
    } finally {
      closeSync(file);
    }
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true }); // a full disk left the part written for good
    throw error;
  }
  syncDirectory(directory);
}

function syncDirectory(directory: string): void {
  try {
    const handle = openSync(directory, 'r');
    try {
      fsyncSync(handle);
    } finally {
      closeSync(handle);
    }
  } catch {
    // a platform or file system that cannot flush a directory: the rename stands as the system keeps it
  }
}

function checksumOf(bytes: Uint8Array): string {
  return `sha256 ${createHash('sha256').update(bytes).digest('hex')} bytes ${bytes.length}`;
}

function identityOf(path: string): string | undefined {
  try {
    const stat = statSync(path);
    return `${stat.ino}:${stat.size}`;
  } catch {
    return undefined;
  }
}

/** marks a model file as used now; a file of another user's cannot be marked, and is kept as it is */
export function markUsed(path: string, now = new Date()): void {
  try {
    utimesSync(path, now, now);
  } catch {
    // not this process's to change (another user's, a cache prepared read-only) or removed meanwhile
  }
}
