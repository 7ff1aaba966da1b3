import { Check, Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';

const bigintAsNumber = { to: (value: number) => value, from: (value: string | null) => (value === null ? null : Number(value)) };

/** The table as the migrations make it, constraints included (test/integration/migrations.spec.ts holds the two together). */
@Entity({ name: 'api_keys' })
@Unique('api_keys_key_hash_key', ['keyHash'])
@Unique('api_keys_key_fingerprint_key', ['keyFingerprint'])
@Check('api_keys_credits_check', 'credits >= 0')
export class ApiKeyRecord {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column({ name: 'client_id', type: 'text' }) clientId!: string;
  @Column({ type: 'text', nullable: true }) note!: string | null;
  @Column({ name: 'key_hash', type: 'char', length: 64 }) keyHash!: string;
  @Column({ name: 'key_fingerprint', type: 'char', length: 12 }) keyFingerprint!: string;
  @Column({ type: 'boolean', default: true }) enabled!: boolean;
  @Column({ type: 'bigint', default: 0, transformer: bigintAsNumber }) credits!: number;
  @Column({ name: 'webhook_secret', type: 'text', nullable: true }) webhookSecret!: string | null;
  @Column({ name: 'previous_webhook_secrets', type: 'jsonb', default: () => "'[]'" }) previousWebhookSecrets!: Array<{ secret: string; validUntil: string }>;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
