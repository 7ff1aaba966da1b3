import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreditsUsageWebhooks1763750000000 implements MigrationInterface {
  name = 'CreditsUsageWebhooks1763750000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Append-only: the balance is the sum of `amount`; api_keys.credits is its projection, kept in the same transaction.
    await queryRunner.query(`
      CREATE TABLE credit_ledger (
        id bigserial PRIMARY KEY,
        api_key_id uuid NOT NULL REFERENCES api_keys(id),
        job_id text,
        kind text NOT NULL CHECK (kind IN ('grant','reserve','charge','release')),
        amount bigint NOT NULL,
        note text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX credit_ledger_by_key ON credit_ledger (api_key_id, created_at)`);
    // One reserve, one charge and one release per job: a replayed settlement cannot bill twice.
    await queryRunner.query(`CREATE UNIQUE INDEX credit_ledger_once_per_job ON credit_ledger (job_id, kind) WHERE job_id IS NOT NULL`);
    await queryRunner.query(`INSERT INTO credit_ledger (api_key_id, kind, amount, note) SELECT id, 'grant', credits, 'opening balance' FROM api_keys WHERE credits > 0`);
    await queryRunner.query(`ALTER TABLE api_keys ADD COLUMN webhook_secret text`);
    await queryRunner.query(`ALTER TABLE jobs ADD COLUMN reserved_credits bigint`);
    await queryRunner.query(`ALTER TABLE jobs ADD COLUMN charged_credits bigint`);

    await queryRunner.query(`
      CREATE TABLE job_events (
        id bigserial PRIMARY KEY,
        api_key_id uuid NOT NULL REFERENCES api_keys(id),
        job_id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('created','started','completed','failed')),
        seconds double precision,
        credits bigint,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX job_events_by_key ON job_events (api_key_id, created_at)`);
    await queryRunner.query(`
      CREATE TABLE usage_events (
        id bigserial PRIMARY KEY,
        api_key_id uuid NOT NULL REFERENCES api_keys(id),
        method text NOT NULL,
        path text NOT NULL,
        status_code integer NOT NULL,
        duration_ms double precision NOT NULL,
        job_id text,
        credits bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX usage_events_by_key ON usage_events (api_key_id, created_at DESC, id DESC)`);

    await queryRunner.query(`
      CREATE TABLE webhook_deliveries (
        id text PRIMARY KEY,
        api_key_id uuid NOT NULL REFERENCES api_keys(id),
        job_id text NOT NULL,
        event text NOT NULL,
        url text NOT NULL,
        body text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending','sent','failed')),
        attempts integer NOT NULL DEFAULT 0,
        last_status_code integer,
        last_error text,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        UNIQUE (job_id, event)
      )`);
    await queryRunner.query(`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE webhook_deliveries`);
    await queryRunner.query(`DROP TABLE usage_events`);
    await queryRunner.query(`DROP TABLE job_events`);
    await queryRunner.query(`ALTER TABLE jobs DROP COLUMN charged_credits`);
    await queryRunner.query(`ALTER TABLE jobs DROP COLUMN reserved_credits`);
    await queryRunner.query(`ALTER TABLE api_keys DROP COLUMN webhook_secret`);
    await queryRunner.query(`DROP TABLE credit_ledger`);
  }
}
