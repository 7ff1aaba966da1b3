import { Matte, RgbFrame, SegmentationSession } from '../types';

/**
 * Frames handed to a session, oldest first: up to its `framesInFlight` are given before the
 * oldest one's result is awaited, so its stages overlap (one frame at a time by default). `feed`
 * is what the session does with a frame: its matte (`FramesInFlight.mattes`), or a survey of it.
 * With more than one frame in flight, each frame is given before the one before it is awaited, and
 * the session is told so (`feedsAhead`) and when the frames end (`framesEnded`).
 */
export class FramesInFlight<T> {
  private readonly pending: Promise<T>[] = [];
  private readonly capacity: number;
  private started = 0;
  private ended = false;

  constructor(
    private readonly session: SegmentationSession,
    private readonly feed: (frame: RgbFrame) => Promise<T>,
  ) {
    this.capacity = Math.max(1, Math.floor(session.framesInFlight ?? 1));
    if (this.capacity > 1) session.feedsAhead?.();
  }

  /** the session's mattes */
  static mattes(session: SegmentationSession): FramesInFlight<Matte> {
    return new FramesInFlight(session, (frame) => session.segment(frame));
  }

  /**
   * The oldest frame's result, once the session holds as many frames as it takes; `read` gives the
   * next frame at the session's input size, or undefined when there are no more. Undefined once
   * every frame's result is out.
   */
  async next(read: () => Promise<Buffer | undefined>): Promise<T | undefined> {
    await this.fill(read);
    return this.pending.shift();
  }

  /** every frame `read` gives, fed and awaited in order; how many there were */
  async drain(read: () => Promise<Buffer | undefined>): Promise<number> {
    let fed = 0;
    for (;;) {
      await this.fill(read);
      const oldest = this.pending.shift();
      if (!oldest) return fed;
      await oldest;
      fed++;
    }
  }

  private async fill(read: () => Promise<Buffer | undefined>): Promise<void> {
    while (!this.ended && this.pending.length < this.capacity) {
      const data = await read();
      if (!data) {
        this.ended = true;
        this.session.framesEnded?.();
        return;
      }
      const result = this.feed({ index: this.started++, width: this.session.inputWidth, height: this.session.inputHeight, data });
      result.catch(() => undefined); // awaited in order; a later frame's failure waits its turn
      this.pending.push(result);
    }
  }
}
