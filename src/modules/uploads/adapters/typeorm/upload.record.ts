import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';

const bigintAsNumber = { to: (value: number) => value, from: (value: string) => Number(value) };

/** The table as the migrations make it (test/integration/migrations.spec.ts holds the two together); its partial index is theirs. */
@Entity({ name: 'uploads' })
@Index('uploads_by_age', { synchronize: false })
export class UploadRecord {
  @PrimaryColumn({ type: 'text' }) id!: string;
  @Column({ name: 'api_key_id', type: 'uuid' }) apiKeyId!: string;
  /** the key's foreign key; never loaded (the key is `apiKeyId`) */
  @ManyToOne('ApiKeyRecord', { nullable: false })
  @JoinColumn({ name: 'api_key_id', foreignKeyConstraintName: 'uploads_api_key_id_fkey' })
  apiKey?: never;
  @Column({ name: 'storage_key', type: 'text' }) storageKey!: string;
  @Column({ type: 'text' }) filename!: string;
  @Column({ type: 'bigint', transformer: bigintAsNumber }) size!: number;
  @Column({ name: 'content_type', type: 'text' }) contentType!: string;
  @Column({ name: 'duration_seconds', type: 'double precision', nullable: true }) durationSeconds!: number | null;
  @Column({ name: 'frame_rate', type: 'double precision', nullable: true }) frameRate!: number | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true }) deletedAt!: Date | null;
}
