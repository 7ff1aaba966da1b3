import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each chunk's best progress so far, by chunk index: a long job's progress is their sum, so that a
 * chunk retried after a failure or a dead worker neither takes its share back (the bar went back)
 * nor adds it twice (a lost attempt's share stayed).
 */
export class ChunkProgress1764400000000 implements MigrationInterface {
  name = 'ChunkProgress1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE jobs ADD COLUMN chunk_progress jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE jobs DROP COLUMN chunk_progress`);
  }
}
