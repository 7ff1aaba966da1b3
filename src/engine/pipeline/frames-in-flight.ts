import { Matte, SegmentationSession } from '../types';

/**
 * The mattes being made, oldest first: frames are handed to the session up to its
 * `framesInFlight` before the oldest matte is awaited, so its stages overlap (one frame at a time
 * by default).
 */
export class FramesInFlight {
  private readonly pending: Promise<Matte>[] = [];
  private readonly capacity: number;
  private started = 0;
  private ended = false;

  constructor(private readonly session: SegmentationSession) {
    this.capacity = Math.max(1, Math.floor(session.framesInFlight ?? 1));
  }

  /**
   * The oldest frame's matte, once the session holds as many frames as it takes; `read` gives the
   * next frame at the session's input size, or undefined when there are no more. Undefined once
   * every frame's matte is out.
   */
  async next(read: () => Promise<Buffer | undefined>): Promise<Matte | undefined> {
    while (!this.ended && this.pending.length < this.capacity) {
      const data = await read();
      if (!data) {
        this.ended = true;
        break;
      }
      const matte = this.session.segment({ index: this.started++, width: this.session.inputWidth, height: this.session.inputHeight, data });
      matte.catch(() => undefined); // awaited in order; a later frame's failure waits its turn
      this.pending.push(matte);
    }
    return this.pending.shift();
  }
}
