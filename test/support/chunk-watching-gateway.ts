import { WorkerFailure, WorkerGateway, WorkerOutcome, WorkerTask } from '../../src/modules/worker-gateway/ports/worker-gateway';

/**
 * Wraps the real WorkerGateway (set as `inner` once the app is up) and records every task it is
 * handed; it can fail a chunk's first attempt, or hold chunks until they are aborted (a cancel).
 */
export class ChunkWatchingGateway extends WorkerGateway {
  inner?: WorkerGateway;
  readonly tasks: WorkerTask[] = [];
  readonly aborted: WorkerTask[] = [];
  private failOnce = new Set<number>();
  private failAlways = new Set<number>();
  private holding = false;

  failFirstAttemptOf(chunkIndex: number): void {
    this.failOnce.add(chunkIndex);
  }

  failEveryAttemptOf(chunkIndex: number | null): void {
    this.failAlways.clear();
    if (chunkIndex !== null) this.failAlways.add(chunkIndex);
  }

  holdChunks(hold: boolean): void {
    this.holding = hold;
  }

  async process(task: WorkerTask, onProgress: (percent: number) => void, signal?: AbortSignal): Promise<WorkerOutcome> {
    this.tasks.push(task);
    const index = this.chunkIndexOf(task);
    if (index !== null && this.failAlways.has(index)) throw new WorkerFailure('worker_failed', `chunk ${index} keeps failing`);
    if (index !== null && this.failOnce.delete(index)) throw new WorkerFailure('worker_failed', `chunk ${index} failed on purpose`);
    if (index !== null && this.holding) {
      onProgress(50);
      await new Promise<void>((resume) => signal?.addEventListener('abort', () => resume(), { once: true }));
      this.aborted.push(task);
      throw new WorkerFailure('canceled', 'processing was canceled');
    }
    return this.inner!.process(task, onProgress, signal);
  }

  check(): Promise<string> {
    return this.inner ? this.inner.check() : Promise.resolve('ok');
  }

  tasksOf(jobId: string): WorkerTask[] {
    return this.tasks.filter((task) => task.jobId === jobId);
  }

  /** chunks/<job>/<index>.<ext> -> index; null for a whole job */
  chunkIndexOf(task: WorkerTask): number | null {
    const match = /^chunks\/[^/]+\/(\d+)\./.exec(task.outputKey);
    return match ? Number(match[1]) : null;
  }
}
