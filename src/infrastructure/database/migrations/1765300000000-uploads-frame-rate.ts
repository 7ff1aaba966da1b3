import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An upload's frame rate beside its duration: a long job is cut into chunks that each hold frames.
 * Cut by seconds alone, a slideshow of one picture every 20 s made chunks holding none, and the job
 * failed. Null for the uploads made before (cut by seconds, as they were).
 */
export class UploadsFrameRate1765300000000 implements MigrationInterface {
  name = 'UploadsFrameRate1765300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE uploads ADD COLUMN IF NOT EXISTS frame_rate double precision`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE uploads DROP COLUMN IF EXISTS frame_rate`);
  }
}
