import { MigrationInterface, QueryRunner } from 'typeorm';

export class IdempotencyAndRateLimits1763800000000 implements MigrationInterface {
  name = 'IdempotencyAndRateLimits1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // One row per (API key, Idempotency-Key): claimed with INSERT .. ON CONFLICT DO NOTHING before the work,
    // completed with the response after it, so concurrent identical requests do the work once.
    await queryRunner.query(`
      CREATE TABLE idempotency_keys (
        api_key_id uuid NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
        idempotency_key text NOT NULL CHECK (char_length(idempotency_key) BETWEEN 1 AND 255),
        fingerprint char(64) NOT NULL,
        status text NOT NULL CHECK (status IN ('in_progress','completed')),
        response_status integer,
        response_body jsonb,
        locked_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (api_key_id, idempotency_key)
      )`);
    await queryRunner.query(`CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at)`);
    // Fixed-window request counters of the Postgres rate-limit store (used when REDIS_URL is unset).
    // Unlogged: cheap to write; a crash forgets at most one window of counts.
    await queryRunner.query(`
      CREATE UNLOGGED TABLE rate_limit_counters (
        key text PRIMARY KEY,
        hits integer NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX rate_limit_counters_expiry ON rate_limit_counters (expires_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE rate_limit_counters`);
    await queryRunner.query(`DROP TABLE idempotency_keys`);
  }
}
