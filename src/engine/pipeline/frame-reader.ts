import { Readable } from 'node:stream';

/**
 * Cuts a byte stream (ffmpeg's rawvideo on a pipe) into fixed-size frames, keeping at most
 * `maxBufferedFrames` frames in memory: past that the stream is paused, the pipe fills and the
 * producing ffmpeg blocks. That is the decoder side of the pipeline's backpressure.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private ended = false;
  private failure: Error | undefined;
  private wakeUp: (() => void) | undefined;

  constructor(
    private readonly stream: Readable,
    readonly frameBytes: number,
    private readonly maxBufferedFrames = 3,
  ) {
    if (frameBytes <= 0) throw new Error('frame size must be positive');
    stream.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      if (this.buffered >= this.frameBytes * this.maxBufferedFrames) stream.pause();
      this.wake();
    });
    stream.once('end', () => {
      this.ended = true;
      this.wake();
    });
    stream.once('error', (error) => {
      this.failure = error;
      this.wake();
    });
  }

  /** The next whole frame, or undefined once the stream has ended. */
  async next(): Promise<Buffer | undefined> {
    for (;;) {
      if (this.failure) throw this.failure;
      if (this.buffered >= this.frameBytes) return this.takeFrame();
      if (this.ended) {
        if (this.buffered > 0) throw new Error(`stream ended inside a frame (${this.buffered} of ${this.frameBytes} bytes)`);
        return undefined;
      }
      await new Promise<void>((resolve) => (this.wakeUp = resolve));
    }
  }

  private takeFrame(): Buffer {
    const frame = Buffer.allocUnsafe(this.frameBytes);
    let filled = 0;
    while (filled < this.frameBytes) {
      const chunk = this.chunks[0];
      const take = Math.min(chunk.length, this.frameBytes - filled);
      chunk.copy(frame, filled, 0, take);
      filled += take;
      if (take === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(take);
    }
    this.buffered -= this.frameBytes;
    if (this.stream.isPaused() && this.buffered < this.frameBytes * this.maxBufferedFrames) this.stream.resume();
    return frame;
  }

  private wake(): void {
    const wakeUp = this.wakeUp;
    this.wakeUp = undefined;
    wakeUp?.();
  }
}
