import { InjectFlowProducer } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { FlowProducer } from 'bullmq';
import { APP_CONFIG, AppConfig } from '../../../../config/app-config';
import { JOBS_FLOW_PRODUCER, JOBS_QUEUE } from '../../../../infrastructure/queue/queue-connection';
import { ChunkDispatcher, ChunkTask, JoinTask } from '../../ports/chunk-dispatcher';

export const CHUNK_MESSAGE = 'chunk';
export const JOIN_MESSAGE = 'join';

/** BullMQ ids of a job's flow: derived from the job's id, so dispatching twice queues once. */
export const joinMessageId = (jobId: string): string => `${jobId}-join`;
export const chunkMessageId = (jobId: string, index: number): string => `${jobId}-chunk-${index}`;

/**
 * A long job as a BullMQ flow on the jobs queue (Redis or Postgres backend alike): the `join` message
 * is the parent and waits in waiting-children until every `chunk` child has completed. A chunk that
 * fails is retried alone; one that runs out of attempts fails the parent (failParentOnFailure).
 */
@Injectable()
export class BullMqChunkDispatcher extends ChunkDispatcher {
  constructor(
    @InjectFlowProducer(JOBS_FLOW_PRODUCER) private readonly flows: FlowProducer,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async dispatch(join: JoinTask, chunks: ChunkTask[]): Promise<void> {
    const kept = { removeOnComplete: { age: 24 * 3600 }, removeOnFail: { age: 7 * 24 * 3600 } };
    await this.flows.add({
      name: JOIN_MESSAGE,
      queueName: JOBS_QUEUE,
      data: join,
      opts: { jobId: joinMessageId(join.jobId), attempts: 5, backoff: { type: 'exponential', delay: 2000 }, ...kept },
      children: chunks.map((chunk) => ({
        name: CHUNK_MESSAGE,
        queueName: JOBS_QUEUE,
        data: chunk,
        opts: {
          jobId: chunkMessageId(chunk.jobId, chunk.index),
          attempts: this.config.chunking.attempts,
          backoff: { type: 'exponential', delay: 1000 },
          failParentOnFailure: true,
          ...kept,
        },
      })),
    });
  }
}
