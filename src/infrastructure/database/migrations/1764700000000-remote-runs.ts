import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The runs remote workers accepted, by task (its output key): a task run again after its process died
 * follows the run already going instead of submitting a second one. Rows past their deadline are
 * removed as new runs are recorded (by deadline, hence its index).
 */
export class RemoteRuns1764700000000 implements MigrationInterface {
  name = 'RemoteRuns1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE remote_runs (task_key text PRIMARY KEY, endpoint text NOT NULL, run_id text NOT NULL, deadline timestamptz NOT NULL)`);
    await queryRunner.query(`CREATE INDEX remote_runs_deadline ON remote_runs (deadline)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE remote_runs`);
  }
}
