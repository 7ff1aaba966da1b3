import { Writable } from 'node:stream';

/**
 * Writes to a child's pipe with backpressure: `write` returns at once while at most
 * `maxPendingBytes` wait in Node's buffer (so the producer runs ahead of a busy reader by a few
 * writes) and waits for 'drain' beyond that, so a slow encoder slows the producer down instead of
 * letting mattes pile up in memory. A closed or broken pipe rejects the waiting write.
 */
export class PipeWriter {
  private failure: Error | undefined;
  private waiting: { resolve: () => void; reject: (error: Error) => void } | undefined;

  constructor(
    private readonly stream: Writable,
    private readonly maxPendingBytes = 0,
  ) {
    stream.on('error', (error) => this.fail(error));
    stream.on('close', () => this.fail(new Error('pipe closed by the reader')));
    stream.on('drain', () => {
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting?.resolve();
    });
  }

  async write(bytes: Uint8Array): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.stream.write(bytes) || this.stream.writableLength <= this.maxPendingBytes) return;
    await new Promise<void>((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  /** Flushes and closes the pipe: the reader sees end-of-file. */
  async end(): Promise<void> {
    if (this.failure) throw this.failure;
    await new Promise<void>((resolve, reject) => {
      this.stream.once('error', reject);
      this.stream.end(() => resolve());
    });
  }

  private fail(error: Error): void {
    if (!this.failure && !this.stream.writableFinished) this.failure = error;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(error);
  }
}
