import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

const nullableBigint = { to: (value: number | null) => value, from: (value: string | null) => (value === null ? null : Number(value)) };

@Entity({ name: 'jobs' })
export class JobRecord {
  @PrimaryColumn({ type: 'text' }) id!: string;
  @Column({ name: 'api_key_id', type: 'uuid' }) apiKeyId!: string;
  @Column({ type: 'text' }) status!: string;
  @Column({ type: 'real' }) progress!: number;
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
  @Column({ name: 'webhook_events', type: 'jsonb' }) webhookEvents!: object;
  @Column({ type: 'jsonb' }) notes!: string[];
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'started_at', type: 'timestamptz', nullable: true }) startedAt!: Date | null;
  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true }) completedAt!: Date | null;
  @Column({ name: 'dispatched_at', type: 'timestamptz', nullable: true }) dispatchedAt!: Date | null;
  @Column({ name: 'output_deleted_at', type: 'timestamptz', nullable: true }) outputDeletedAt!: Date | null;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
