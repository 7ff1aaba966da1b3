import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { IsNull, LessThan, Repository } from 'typeorm';
import { JobFailureCode } from '../../../../common/errors/error-codes';
import { Job } from '../../domain/job';
import { JobRequest, JobSettings } from '../../domain/job-settings';
import { JobStatus } from '../../domain/job-status';
import { JobListQuery, JobPage, JobRepository } from '../../ports/job.repository';
import { JobRecord } from './job.record';

function toDomain(record: JobRecord): Job {
  return {
    id: record.id,
    apiKeyId: record.apiKeyId,
    status: record.status as JobStatus,
    progress: record.progress,
    videoUrl: record.videoUrl,
    request: record.request as JobRequest,
    settings: record.settings as JobSettings,
    webhookUrl: record.webhookUrl,
    metadata: record.metadata,
    error: record.error,
    errorCode: record.errorCode as JobFailureCode | null,
    outputKey: record.outputKey,
    durationSeconds: record.durationSeconds,
    billingStatus: record.billingStatus as Job['billingStatus'],
    reservedCredits: record.reservedCredits,
    chargedCredits: record.chargedCredits,
    webhookEvents: record.webhookEvents as Job['webhookEvents'],
    notes: record.notes,
    createdAt: record.createdAt,
    startedAt: record.startedAt,
    completedAt: record.completedAt,
    dispatchedAt: record.dispatchedAt,
    outputDeletedAt: record.outputDeletedAt,
  };
}

/** The jobs columns JobRecord maps, as pg returns them. */
interface JobRow {
  id: string;
  api_key_id: string;
  status: string;
  progress: number;
  video_url: string;
  request: object;
  settings: object;
  webhook_url: string | null;
  metadata: Record<string, string> | null;
  error: string | null;
  error_code: string | null;
  output_key: string | null;
  duration_seconds: number | null;
  billing_status: string | null;
  reserved_credits: string | null;
  charged_credits: string | null;
  webhook_events: object;
  notes: string[];
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  dispatched_at: Date | null;
  output_deleted_at: Date | null;
  updated_at: Date;
}

const FIND_OWNED = `SELECT id, api_key_id, status, progress, video_url, request, settings, webhook_url, metadata, error, error_code, output_key,
  duration_seconds, billing_status, reserved_credits, charged_credits, webhook_events, notes, created_at, started_at, completed_at,
  dispatched_at, output_deleted_at, updated_at FROM jobs WHERE id = $1 AND api_key_id = $2`;

const countOf = (value: string | null): number | null => (value === null ? null : Number(value));

function fromRow(row: JobRow): JobRecord {
  return {
    id: row.id,
    apiKeyId: row.api_key_id,
    status: row.status,
    progress: row.progress,
    videoUrl: row.video_url,
    request: row.request,
    settings: row.settings,
    webhookUrl: row.webhook_url,
    metadata: row.metadata,
    error: row.error,
    errorCode: row.error_code,
    outputKey: row.output_key,
    durationSeconds: row.duration_seconds,
    billingStatus: row.billing_status,
    reservedCredits: countOf(row.reserved_credits),
    chargedCredits: countOf(row.charged_credits),
    webhookEvents: row.webhook_events,
    notes: row.notes,
    createdAt: row.created_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    dispatchedAt: row.dispatched_at,
    outputDeletedAt: row.output_deleted_at,
    updatedAt: row.updated_at,
  };
}

function toRecordChanges(changes: Partial<Job>): Partial<JobRecord> {
  const { request, settings, webhookEvents, ...rest } = changes;
  return {
    ...rest,
    ...(request ? { request: request as object } : {}),
    ...(settings ? { settings: settings as object } : {}),
    ...(webhookEvents ? { webhookEvents: webhookEvents as object } : {}),
  };
}

@Injectable()
export class TypeOrmJobRepository extends JobRepository {
  private readonly pool: Pool;

  constructor(@InjectRepository(JobRecord) private readonly records: Repository<JobRecord>) {
    super();
    this.pool = (records.manager.connection.driver as unknown as { master: Pool }).master;
  }

  async insert(job: Job): Promise<void> {
    await this.records.insert(this.records.create({ ...toRecordChanges(job), createdAt: job.createdAt }));
  }

  /**
   * The read every status poll makes, by primary key: one prepared statement on the driver's pool,
   * its row mapped as TypeORM would (the same pg type parsing, bigint counts as numbers), without
   * building a query or hydrating an entity each time.
   */
  async findOwned(id: string, apiKeyId: string): Promise<Job | null> {
    const { rows } = await this.pool.query<JobRow>({ name: 'jobs-find-owned', text: FIND_OWNED, values: [id, apiKeyId] });
    return rows[0] ? toDomain(fromRow(rows[0])) : null;
  }

  async findById(id: string): Promise<Job | null> {
    const record = await this.records.findOneBy({ id });
    return record ? toDomain(record) : null;
  }

  async list(query: JobListQuery): Promise<JobPage> {
    const [records, total] = await this.records.findAndCount({
      where: { apiKeyId: query.apiKeyId, ...(query.status ? { status: query.status } : {}) },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: query.limit,
      skip: query.offset,
    });
    return { items: records.map(toDomain), total };
  }

  async transition(id: string, expectedStatus: JobStatus, changes: Partial<Job>): Promise<Job | null> {
    const result = await this.records.update({ id, status: expectedStatus }, toRecordChanges(changes));
    if (!result.affected) return null;
    return this.findById(id);
  }

  async updateProgress(id: string, progress: number): Promise<boolean> {
    const result = await this.records.update({ id, status: 'processing' }, { progress });
    return Boolean(result.affected);
  }

  async addProgress(id: string, delta: number): Promise<boolean> {
    const result = await this.records
      .createQueryBuilder()
      .update()
      .set({ progress: () => 'LEAST(99, GREATEST(0, progress + :delta))' })
      .where('id = :id AND status = :status', { id, status: 'processing' })
      .setParameter('delta', delta)
      .execute();
    return Boolean(result.affected);
  }

  async markDispatched(id: string): Promise<void> {
    await this.records.update({ id, dispatchedAt: IsNull() }, { dispatchedAt: new Date() });
  }

  async undispatched(startedBefore: Date, limit: number): Promise<string[]> {
    const rows = await this.records.find({
      select: { id: true },
      where: { status: 'pending', dispatchedAt: IsNull(), startedAt: LessThan(startedBefore) },
      order: { startedAt: 'ASC' },
      take: limit,
    });
    return rows.map((row) => row.id);
  }
}
