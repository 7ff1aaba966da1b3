/**
 * The frames a session was given and has not finished yet, by index. Where the caller gives frames
 * ahead of their turn and says when they end (SegmentationSession.feedsAhead / framesEnded), a
 * frame being finished may wait for a later one to be given (`waitFor`).
 */
export class GivenFrames<T> {
  private readonly frames = new Map<number, T>();
  private aheadOfTurn = false;
  private over = false;
  private last = -1;
  /** a frame being finished waits for this later one to be given (or for the frames to end) */
  private awaited?: { index: number; given: (given: boolean) => void };

  /** frame `index` given; false where the numbering started again (a chunk's frames after its pre-roll's, from 0) */
  add(index: number, frame: T): boolean {
    const inSequence = index > this.last;
    this.last = index;
    this.frames.set(index, frame);
    this.over = false;
    const awaited = this.awaited;
    if (awaited && index >= awaited.index) {
      this.awaited = undefined;
      awaited.given(index === awaited.index);
    }
    return inSequence;
  }

  get(index: number): T | undefined {
    return this.frames.get(index);
  }

  finished(index: number): void {
    this.frames.delete(index);
  }

  /** the caller gives frames ahead of their turn, and says when they end */
  feedsAhead(): void {
    this.aheadOfTurn = true;
  }

  get fedAhead(): boolean {
    return this.aheadOfTurn;
  }

  /** no frame follows for now (a chunk's pre-roll ends so, before its own frames) */
  ended(): void {
    this.over = true;
    this.awaited?.given(false);
    this.awaited = undefined;
  }

  /** whether frame `index` is given, waiting for it while frames come (false once they end, or where a later one comes first) */
  waitFor(index: number): Promise<boolean> {
    if (this.frames.has(index)) return Promise.resolve(true);
    if (this.over) return Promise.resolve(false);
    return new Promise((given) => (this.awaited = { index, given }));
  }
}
