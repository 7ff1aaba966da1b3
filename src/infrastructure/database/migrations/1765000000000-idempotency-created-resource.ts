import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a claim's work created (a job's id), written in the work's own transaction with the claim
 * that wrote it: a claim taken over after its process died unanswered finds it instead of doing the
 * work again. The claim is kept beside it because a process of the release before takes a key over
 * without clearing the note: a note another claim wrote is not that claim's work.
 */
export class IdempotencyCreatedResource1765000000000 implements MigrationInterface {
  name = 'IdempotencyCreatedResource1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE idempotency_keys ADD COLUMN created_resource text, ADD COLUMN created_under_claim uuid`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE idempotency_keys DROP COLUMN created_resource, DROP COLUMN created_under_claim`);
  }
}
