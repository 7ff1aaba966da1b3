import { ChunkDispatcher, ChunkTask, JoinTask } from '../../ports/chunk-dispatcher';

/** Keeps dispatched flows in memory (unit tests run the chunks and the join themselves). */
export class InMemoryChunkDispatcher extends ChunkDispatcher {
  readonly flows = new Map<string, { join: JoinTask; chunks: ChunkTask[] }>();

  async dispatch(join: JoinTask, chunks: ChunkTask[]): Promise<void> {
    if (!this.flows.has(join.jobId)) this.flows.set(join.jobId, { join, chunks });
  }
}
