import { RvmGeometry } from './rvm-model-file';

/** what the registry needs of an open RVM (RvmMatter) */
export interface OpenRvm {
  /** a video's stream is open on it */
  readonly inUse: boolean;
  close(): Promise<void>;
}

/**
 * Idle RVMs kept open beyond those in use, the most recently asked for: a video's geometries come
 * back (every 16:9 clip of a model shares one), and opening one again costs a second or two. Each
 * open RVM holds its model, its arena and two threads: about 100-120 MB for `light`'s, 275 MB for
 * `human`'s. Kept for good, a warm engine process grew by that for each aspect ratio clients sent
 * (`light` 292 MB with one, 991 MB with eight; `human` 528 MB with one, 1353 MB with four).
 */
export const IDLE_RVMS_KEPT = 4;
/**
 * An RVM asked for this recently is not closed, stream or not: a session opens its stream once all
 * its parts are open (the small mirrored RVM, the detector), and another session's request meanwhile
 * must not close the first one's RVM under it. A minute is far longer than a session takes to open
 * (an engine process runs one job at a time; a conversion takes seconds).
 */
export const RECENTLY_ASKED_MS = 60_000;

interface Entry<T> {
  opening: Promise<T>;
  opened?: T;
  askedAt: number;
}

/**
 * The open RVMs of an engine process, one per geometry, shared by its videos; those beyond the
 * IDLE_RVMS_KEPT most recently asked for are closed once idle (no stream open, not asked for within
 * RECENTLY_ASKED_MS).
 */
export class RvmMatters<T extends OpenRvm> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly open: (geometry: RvmGeometry) => Promise<T>,
    private readonly kept = IDLE_RVMS_KEPT,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get(geometry: RvmGeometry): Promise<T> {
    const key = keyOf(geometry);
    let entry = this.entries.get(key);
    if (!entry) {
      const opening = this.open(geometry);
      const created: Entry<T> = { opening, askedAt: this.now() };
      entry = created;
      this.entries.set(key, created);
      opening.then(
        (opened) => (created.opened = opened),
        () => this.entries.get(key) === created && this.entries.delete(key), // a failed open may be tried again
      );
    }
    entry.askedAt = this.now();
    this.closeIdle();
    return entry.opening;
  }

  /** how many are open or opening */
  get size(): number {
    return this.entries.size;
  }

  private closeIdle(): void {
    const now = this.now();
    const idle = [...this.entries]
      .filter(([, entry]) => entry.opened && !entry.opened.inUse && now - entry.askedAt >= RECENTLY_ASKED_MS)
      .sort(([, a], [, b]) => a.askedAt - b.askedAt);
    for (const [key, entry] of idle.slice(0, Math.max(0, idle.length - this.kept))) {
      this.entries.delete(key);
      void entry.opened?.close().catch(() => undefined);
    }
  }
}

function keyOf(geometry: RvmGeometry): string {
  return `${geometry.width}x${geometry.height}@${geometry.ratio}/${geometry.precision ?? 'float32'}${geometry.stages ? `/stages${geometry.stages}` : ''}${geometry.foreground ? '/foreground' : ''}`;
}
