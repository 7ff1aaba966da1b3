import { MigrationInterface, QueryRunner } from 'typeorm';

export class DispatchOutboxAndRetention1763850000000 implements MigrationInterface {
  name = 'DispatchOutboxAndRetention1763850000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // A pending job with no dispatched_at is committed work the relay has not handed to the queue yet.
    await queryRunner.query(`ALTER TABLE jobs ADD COLUMN dispatched_at timestamptz`);
    await queryRunner.query(`UPDATE jobs SET dispatched_at = now() WHERE status <> 'created'`);
    await queryRunner.query(`CREATE INDEX jobs_undispatched ON jobs (started_at) WHERE status = 'pending' AND dispatched_at IS NULL`);
    await queryRunner.query(`ALTER TABLE jobs ADD COLUMN output_deleted_at timestamptz`);
    await queryRunner.query(`CREATE INDEX jobs_outputs_by_age ON jobs (completed_at) WHERE output_key IS NOT NULL AND output_deleted_at IS NULL`);
    await queryRunner.query(`ALTER TABLE uploads ADD COLUMN deleted_at timestamptz`);
    await queryRunner.query(`CREATE INDEX uploads_by_age ON uploads (created_at) WHERE deleted_at IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE uploads DROP COLUMN deleted_at`);
    await queryRunner.query(`ALTER TABLE jobs DROP COLUMN output_deleted_at`);
    await queryRunner.query(`ALTER TABLE jobs DROP COLUMN dispatched_at`);
  }
}
