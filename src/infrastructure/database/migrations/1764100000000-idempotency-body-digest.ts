import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An upload is streamed, not read before its Idempotency-Key is claimed, so its key is claimed by
 * route alone and the digest of its files is kept beside the response once it is done: a replay is
 * answered only when its files hash the same.
 */
export class IdempotencyBodyDigest1764100000000 implements MigrationInterface {
  name = 'IdempotencyBodyDigest1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE idempotency_keys ADD COLUMN body_digest text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE idempotency_keys DROP COLUMN body_digest`);
  }
}
