import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

const bigintAsNumber = { to: (value: number) => value, from: (value: string) => Number(value) };

@Entity({ name: 'uploads' })
export class UploadRecord {
  @PrimaryColumn({ type: 'text' }) id!: string;
  @Column({ name: 'api_key_id', type: 'uuid' }) apiKeyId!: string;
  @Column({ name: 'storage_key', type: 'text' }) storageKey!: string;
  @Column({ type: 'text' }) filename!: string;
  @Column({ type: 'bigint', transformer: bigintAsNumber }) size!: number;
  @Column({ name: 'content_type', type: 'text' }) contentType!: string;
  @Column({ name: 'duration_seconds', type: 'double precision', nullable: true }) durationSeconds!: number | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true }) deletedAt!: Date | null;
}
