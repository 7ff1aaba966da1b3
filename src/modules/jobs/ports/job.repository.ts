import { Job } from '../domain/job';
import { JobStatus } from '../domain/job-status';

export interface JobPage {
  items: Job[];
  total: number;
}

export interface JobListQuery {
  apiKeyId: string;
  status?: JobStatus;
  limit: number;
  offset: number;
}

export abstract class JobRepository {
  abstract insert(job: Job): Promise<void>;
  /** Scoped to the owner: another key's job is simply not found. */
  abstract findOwned(id: string, apiKeyId: string): Promise<Job | null>;
  abstract findById(id: string): Promise<Job | null>;
  abstract list(query: JobListQuery): Promise<JobPage>;
  /**
   * Applies `changes` only while the job is still in `expectedStatus` (compare-and-set), so two
   * actors can never both move a job. Returns the updated job, or null when the status had moved.
   */
  abstract transition(id: string, expectedStatus: JobStatus, changes: Partial<Job>): Promise<Job | null>;
  /** Writes progress while the job is processing; false once it is not (canceled or ended elsewhere). */
  abstract updateProgress(id: string, progress: number): Promise<boolean>;
  /**
   * Records that chunk `chunk` of a long job has done `percent` of the whole job, from whichever
   * worker runs it, in one atomic step while the job is processing. Each chunk keeps its best, and
   * the job's progress is their sum, within 0..99: a chunk run again after a failure or a worker
   * that died neither takes its share back nor counts it twice.
   */
  abstract recordChunkProgress(id: string, chunk: number, percent: number): Promise<boolean>;
  abstract markDispatched(id: string, at: Date): Promise<void>;
  /** a key's pending and processing jobs, the work an erasure of its data ends first */
  abstract activeOf(apiKeyId: string): Promise<Job[]>;
  /**
   * Erases what the key's client put in every one of its jobs, as withClientContentErased does, and
   * answers how many jobs the key has and every output key they name: those already marked deleted
   * too, so that an erasure run again after a storage failure deletes what is left.
   */
  abstract eraseClientContent(apiKeyId: string, now: Date): Promise<{ jobs: number; outputKeys: string[] }>;
  /** Started jobs the relay has not handed to the queue since before `startedBefore` (the outbox). */
  abstract undispatched(startedBefore: Date, limit: number): Promise<string[]>;
  /**
   * Pending jobs handed to the queue before `dispatchedBefore`: a page of at most `limit` ids in id
   * order, those after `afterId` (the previous page's last).
   */
  abstract waitingInQueue(dispatchedBefore: Date, limit: number, afterId?: string): Promise<string[]>;
  /**
   * Whether the key is past its fair share of the workers: it has `share` or more jobs processing
   * while a job of another key, with fewer than `share` processing, waits in the queue.
   */
  abstract overFairShare(apiKeyId: string, share: number): Promise<boolean>;
}
