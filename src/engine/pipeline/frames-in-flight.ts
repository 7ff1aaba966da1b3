import { Matte } from '../types';

/**
 * The mattes being made, oldest first: up to the session's `framesInFlight` frames are handed to
 * it before the first matte is awaited, so its stages overlap (one frame at a time by default).
 */
export class FramesInFlight {
  private readonly pending: Promise<Matte>[] = [];
  private readonly capacity: number;
  /** frames handed to the session so far */
  started = 0;
  private ended = false;

  constructor(framesInFlight = 1) {
    this.capacity = Math.max(1, Math.floor(framesInFlight));
  }

  get hasRoom(): boolean {
    return !this.ended && this.pending.length < this.capacity;
  }

  add(matte: Promise<Matte>): void {
    matte.catch(() => undefined); // awaited in order by next(); a later frame's failure waits its turn
    this.pending.push(matte);
    this.started += 1;
  }

  /** the decoder has no more frames */
  endOfFrames(): void {
    this.ended = true;
  }

  /** the oldest frame's matte; undefined once every frame's matte is out */
  async next(): Promise<Matte | undefined> {
    return this.pending.shift();
  }
}
