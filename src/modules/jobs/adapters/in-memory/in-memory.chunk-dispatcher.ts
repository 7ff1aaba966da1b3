import { ChunkDispatcher, ChunkOutcome, ChunkTask, JoinTask } from '../../ports/chunk-dispatcher';

export interface FlowConsumer {
  runChunk(task: ChunkTask): Promise<ChunkOutcome | null>;
  chunkGaveUp(task: ChunkTask, error: Error): Promise<void>;
  join(task: JoinTask, outcomes: Array<ChunkOutcome | null>): Promise<void>;
}

/**
 * Flows in memory, idempotent per job id, as BullMQ's ids make them. With a consumer (the
 * all-in-memory app gives it ChunkedJobHandler) each flow runs off the caller's path: every chunk,
 * each retried alone up to `attempts`, then the join; without one they are only kept (unit tests).
 */
export class InMemoryChunkDispatcher extends ChunkDispatcher {
  readonly flows = new Map<string, { join: JoinTask; chunks: ChunkTask[] }>();
  private consumer?: FlowConsumer;
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly attempts = 1) {
    super();
  }

  consumeWith(consumer: FlowConsumer): void {
    this.consumer = consumer;
  }

  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  async dispatch(join: JoinTask, chunks: ChunkTask[]): Promise<void> {
    if (this.flows.has(join.jobId)) return;
    this.flows.set(join.jobId, { join, chunks });
    const consumer = this.consumer;
    if (!consumer) return;
    const run = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.runFlow(consumer, join, chunks))
      .finally(() => this.running.delete(run));
    this.running.add(run);
  }

  private async runFlow(consumer: FlowConsumer, join: JoinTask, chunks: ChunkTask[]): Promise<void> {
    const outcomes: Array<ChunkOutcome | null> = [];
    for (const chunk of chunks) {
      for (let attempt = 1; ; attempt++) {
        try {
          outcomes.push(await consumer.runChunk(chunk));
          break;
        } catch (error) {
          if (attempt < this.attempts) continue;
          await consumer.chunkGaveUp(chunk, error as Error);
          return;
        }
      }
    }
    await consumer.join(join, outcomes);
  }
}
