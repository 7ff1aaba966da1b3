import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a claim's work created (a job's id), written in the work's own transaction: a claim taken
 * over after its process died unanswered finds it instead of doing the work again.
 */
export class IdempotencyCreatedResource1765000000000 implements MigrationInterface {
  name = 'IdempotencyCreatedResource1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE idempotency_keys ADD COLUMN created_resource text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE idempotency_keys DROP COLUMN created_resource`);
  }
}
