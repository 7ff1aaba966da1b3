import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';

const nullableBigint = { to: (value: number | null) => value, from: (value: string | null) => (value === null ? null : Number(value)) };

/**
 * The table as the migrations make it, constraints and indexes included (test/integration/migrations.spec.ts
 * holds the two together). Its indexes are the migrations' own: partial, in descending order or on an
 * expression, which TypeORM cannot write, so it leaves them alone (`synchronize: false`).
 */
@Entity({ name: 'jobs' })
@Check('jobs_status_check', "status IN ('created','pending','processing','completed','failed')")
@Index('jobs_by_key_created', { synchronize: false })
@Index('jobs_by_key_status_created_id', { synchronize: false })
@Index('jobs_undispatched', { synchronize: false })
@Index('jobs_outputs_by_age', { synchronize: false })
@Index('jobs_reading_upload', { synchronize: false })
@Index('jobs_waiting_in_queue', { synchronize: false })
@Index('jobs_waiting_by_key', { synchronize: false })
export class JobRecord {
  @PrimaryColumn({ type: 'text' }) id!: string;
  @Column({ name: 'api_key_id', type: 'uuid' }) apiKeyId!: string;
  /** the key's foreign key; never loaded (the key is `apiKeyId`) */
  @ManyToOne('ApiKeyRecord', { nullable: false })
  @JoinColumn({ name: 'api_key_id', foreignKeyConstraintName: 'jobs_api_key_id_fkey' })
  apiKey?: never;
  @Column({ type: 'text' }) status!: string;
  @Column({ type: 'real', default: 0 }) progress!: number;
  @Column({ name: 'video_url', type: 'text' }) videoUrl!: string;
  @Column({ type: 'jsonb' }) request!: object;
  @Column({ type: 'jsonb' }) settings!: object;
  @Column({ name: 'webhook_url', type: 'text', nullable: true }) webhookUrl!: string | null;
  @Column({ type: 'jsonb', nullable: true }) metadata!: Record<string, string> | null;
  @Column({ type: 'text', nullable: true }) error!: string | null;
  @Column({ name: 'error_code', type: 'text', nullable: true }) errorCode!: string | null;
  @Column({ name: 'output_key', type: 'text', nullable: true }) outputKey!: string | null;
  @Column({ name: 'duration_seconds', type: 'double precision', nullable: true }) durationSeconds!: number | null;
  @Column({ name: 'billing_status', type: 'text', nullable: true }) billingStatus!: string | null;
  @Column({ name: 'reserved_credits', type: 'bigint', nullable: true, transformer: nullableBigint }) reservedCredits!: number | null;
  @Column({ name: 'charged_credits', type: 'bigint', nullable: true, transformer: nullableBigint }) chargedCredits!: number | null;
  @Column({ name: 'webhook_events', type: 'jsonb', default: () => "'{}'" }) webhookEvents!: object;
  @Column({ type: 'jsonb', default: () => "'[]'" }) notes!: string[];
  /** each chunk's best progress, written and read in SQL alone (TypeOrmJobRepository.recordChunkProgress) */
  @Column({ name: 'chunk_progress', type: 'jsonb', nullable: true, select: false, insert: false, update: false }) chunkProgress?: never;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'started_at', type: 'timestamptz', nullable: true }) startedAt!: Date | null;
  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true }) completedAt!: Date | null;
  @Column({ name: 'dispatched_at', type: 'timestamptz', nullable: true }) dispatchedAt!: Date | null;
  @Column({ name: 'output_deleted_at', type: 'timestamptz', nullable: true }) outputDeletedAt!: Date | null;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
