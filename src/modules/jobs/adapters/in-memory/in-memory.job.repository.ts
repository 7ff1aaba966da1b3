import type { Snapshottable } from '../../../../common/in-memory.unit-of-work';
import { Job, WebhookDeliveryState, WebhookEventName, withClientContentErased } from '../../domain/job';
import { JobStatus } from '../../domain/job-status';
import { JobListQuery, JobPage, JobRepository } from '../../ports/job.repository';

const copy = (job: Job): Job => structuredClone(job);

/** Jobs in a Map, with the TypeORM adapter's semantics: owner-scoped reads, compare-and-set transitions. */
export class InMemoryJobRepository extends JobRepository implements Snapshottable {
  private jobs = new Map<string, Job>();
  /** each long job's chunks' best progress, by chunk index (the TypeORM adapter's chunk_progress) */
  private readonly chunkProgress = new Map<string, Map<number, number>>();

  snapshot(): () => void {
    const saved = new Map([...this.jobs].map(([id, job]) => [id, copy(job)]));
    return () => {
      this.jobs = saved;
    };
  }

  /** a delivery of the job's `event` sent or failed, as the Postgres outbox writes it into the job's row (the in-memory outbox's `settled`) */
  recordWebhookEvent(jobId: string, event: WebhookEventName, state: WebhookDeliveryState): void {
    const job = this.jobs.get(jobId);
    if (job) job.webhookEvents = { ...job.webhookEvents, [event]: state };
  }

  async insert(job: Job): Promise<void> {
    if (this.jobs.has(job.id)) throw new Error(`duplicate job id ${job.id}`);
    this.jobs.set(job.id, copy(job));
  }

  async findOwned(id: string, apiKeyId: string): Promise<Job | null> {
    const job = this.jobs.get(id);
    return job && job.apiKeyId === apiKeyId ? copy(job) : null;
  }

  async findById(id: string): Promise<Job | null> {
    const job = this.jobs.get(id);
    return job ? copy(job) : null;
  }

  async list(query: JobListQuery): Promise<JobPage> {
    const matching = [...this.jobs.values()]
      .filter((job) => job.apiKeyId === query.apiKeyId && (!query.status || job.status === query.status))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
    return { items: matching.slice(query.offset, query.offset + query.limit).map(copy), total: matching.length };
  }

  async transition(id: string, expectedStatus: JobStatus, changes: Partial<Job>): Promise<Job | null> {
    const job = this.jobs.get(id);
    if (!job || job.status !== expectedStatus) return null;
    const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    this.jobs.set(id, copy({ ...job, ...defined }));
    return copy(this.jobs.get(id)!);
  }

  async updateProgress(id: string, progress: number): Promise<boolean> {
    const job = this.jobs.get(id);
    if (!job || job.status !== 'processing') return false;
    job.progress = progress;
    return true;
  }

  async recordChunkProgress(id: string, chunk: number, percent: number): Promise<boolean> {
    const job = this.jobs.get(id);
    if (!job || job.status !== 'processing') return false;
    const chunks = this.chunkProgress.get(id) ?? new Map<number, number>();
    const before = chunks.get(chunk) ?? 0;
    const best = Math.max(before, percent);
    chunks.set(chunk, best);
    this.chunkProgress.set(id, chunks);
    job.progress = Math.min(99, Math.max(0, job.progress - before + best));
    return true;
  }

  async activeOf(apiKeyId: string): Promise<Job[]> {
    return [...this.jobs.values()].filter((job) => job.apiKeyId === apiKeyId && (job.status === 'pending' || job.status === 'processing')).map(copy);
  }

  async eraseClientContent(apiKeyId: string, now: Date): Promise<{ jobs: number; outputKeys: string[] }> {
    const owned = [...this.jobs.values()].filter((job) => job.apiKeyId === apiKeyId);
    for (const job of owned) this.jobs.set(job.id, withClientContentErased(job, now));
    return { jobs: owned.length, outputKeys: owned.flatMap((job) => (job.outputKey ? [job.outputKey] : [])) };
  }

  async markDispatched(id: string, at: Date): Promise<void> {
    const job = this.jobs.get(id);
    if (job && !job.dispatchedAt) job.dispatchedAt = at;
  }

  async undispatched(startedBefore: Date, limit: number): Promise<string[]> {
    return [...this.jobs.values()]
      .filter((job) => job.status === 'pending' && !job.dispatchedAt && job.startedAt && job.startedAt < startedBefore)
      .sort((a, b) => a.startedAt!.getTime() - b.startedAt!.getTime())
      .slice(0, limit)
      .map((job) => job.id);
  }

  async overFairShare(apiKeyId: string, share: number): Promise<boolean> {
    const processing = new Map<string, number>();
    for (const job of this.jobs.values()) if (job.status === 'processing') processing.set(job.apiKeyId, (processing.get(job.apiKeyId) ?? 0) + 1);
    const processingOf = (key: string): number => processing.get(key) ?? 0;
    if (processingOf(apiKeyId) < share) return false;
    return [...this.jobs.values()].some((job) => job.status === 'pending' && job.dispatchedAt && job.apiKeyId !== apiKeyId && processingOf(job.apiKeyId) < share);
  }

  async waitingInQueue(dispatchedBefore: Date, limit: number, afterId = ''): Promise<string[]> {
    return [...this.jobs.values()]
      .filter((job) => job.status === 'pending' && job.dispatchedAt && job.dispatchedAt < dispatchedBefore && job.id > afterId)
      .map((job) => job.id)
      .sort()
      .slice(0, limit);
  }
}
