import { MigrationInterface, QueryRunner } from 'typeorm';

export class InitialSchema1763700000000 implements MigrationInterface {
  name = 'InitialSchema1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        client_id text NOT NULL,
        note text,
        key_hash char(64) NOT NULL UNIQUE,
        key_fingerprint char(12) NOT NULL UNIQUE,
        enabled boolean NOT NULL DEFAULT true,
        credits bigint NOT NULL DEFAULT 0 CHECK (credits >= 0),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE uploads (
        id text PRIMARY KEY,
        api_key_id uuid NOT NULL REFERENCES api_keys(id),
        storage_key text NOT NULL,
        filename text NOT NULL,
        size bigint NOT NULL,
        content_type text NOT NULL,
        duration_seconds double precision,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE jobs (
        id text PRIMARY KEY,
        api_key_id uuid NOT NULL REFERENCES api_keys(id),
        status text NOT NULL CHECK (status IN ('created','pending','processing','completed','failed')),
        progress real NOT NULL DEFAULT 0,
        video_url text NOT NULL,
        request jsonb NOT NULL,
        settings jsonb NOT NULL,
        webhook_url text,
        metadata jsonb,
        error text,
        error_code text,
        output_key text,
        duration_seconds double precision,
        billing_status text,
        webhook_events jsonb NOT NULL DEFAULT '{}'::jsonb,
        notes jsonb NOT NULL DEFAULT '[]'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        completed_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX jobs_by_key_created ON jobs (api_key_id, created_at DESC, id DESC)`);
    await queryRunner.query(`CREATE INDEX jobs_by_key_status_created ON jobs (api_key_id, status, created_at DESC)`);
    await queryRunner.query(`
      CREATE TABLE app_settings (
        name text PRIMARY KEY,
        value text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE app_settings`);
    await queryRunner.query(`DROP TABLE jobs`);
    await queryRunner.query(`DROP TABLE uploads`);
    await queryRunner.query(`DROP TABLE api_keys`);
  }
}
