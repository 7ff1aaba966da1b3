import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each claim of an Idempotency-Key is named, and only that claim completes or releases the key: a
 * request whose claim was taken over (abandoned, or expired) deleted or overwrote the claim that
 * took it over. Rows claimed before this migration have none: the processes of the release before,
 * which claimed them, complete or release them as they did (by key alone) until they are replaced.
 */
export class IdempotencyClaimId1764200000000 implements MigrationInterface {
  name = 'IdempotencyClaimId1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE idempotency_keys ADD COLUMN claim_id uuid`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE idempotency_keys DROP COLUMN claim_id`);
  }
}
