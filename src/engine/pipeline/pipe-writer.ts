import { Writable } from 'node:stream';

/**
 * Writes to a child's pipe with backpressure: `write` returns at once while at most
 * `maxPendingBytes` wait to enter the pipe (so the producer runs ahead of a busy reader) and
 * beyond that waits until the reader has taken enough for the backlog to fit again, so a slow
 * encoder slows the producer down instead of letting mattes pile up in memory.
 *
 * The stream is handed one write at a time. Given many, Node joins them into one system write
 * that completes only when the pipe has taken all of them: the producer would then stop until
 * the reader had worked through the whole backlog, and the two would take turns instead of
 * working side by side. A closed or broken pipe rejects the waiting write.
 */
export class PipeWriter {
  private failure: Error | undefined;
  private waiting: { resolve: () => void; reject: (error: Error) => void } | undefined;
  private readonly queue: Uint8Array[] = [];
  /** bytes queued here and the write the stream holds */
  private pendingBytes = 0;
  private streamHoldsWrite = false;

  constructor(
    private readonly stream: Writable,
    private readonly maxPendingBytes = 0,
  ) {
    stream.on('error', (error) => this.fail(error));
    stream.on('close', () => this.fail(new Error('pipe closed by the reader')));
  }

  async write(bytes: Uint8Array): Promise<void> {
    if (this.failure) throw this.failure;
    this.queue.push(bytes);
    this.pendingBytes += bytes.length;
    this.handOver();
    if (this.pendingBytes <= this.maxPendingBytes) return;
    await new Promise<void>((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  /** Flushes and closes the pipe: the reader sees end-of-file. */
  async end(): Promise<void> {
    if (this.failure) throw this.failure;
    for (const bytes of this.queue.splice(0)) this.stream.write(bytes);
    await new Promise<void>((resolve, reject) => {
      this.stream.once('error', reject);
      this.stream.end(() => resolve());
    });
  }

  private handOver(): void {
    if (this.streamHoldsWrite || this.failure) return;
    const bytes = this.queue.shift();
    if (!bytes) return;
    this.streamHoldsWrite = true;
    this.stream.write(bytes, (error) => {
      this.streamHoldsWrite = false;
      if (error) return; // the stream's 'error' event fails the writer
      this.pendingBytes -= bytes.length;
      if (this.pendingBytes <= this.maxPendingBytes) this.release();
      this.handOver();
    });
  }

  private release(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve();
  }

  private fail(error: Error): void {
    if (!this.failure && !this.stream.writableFinished) this.failure = error;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(error);
  }
}
