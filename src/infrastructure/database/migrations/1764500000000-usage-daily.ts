import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each key's API requests counted per UTC day, written by the same statement as the requests
 * themselves: the usage summary read them by counting every request of its window (half a second
 * for a key with a million requests a week), and the requests themselves are now kept 90 days.
 */
export class UsageDaily1764500000000 implements MigrationInterface {
  name = 'UsageDaily1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE usage_daily (
        api_key_id uuid NOT NULL REFERENCES api_keys(id),
        day date NOT NULL,
        requests bigint NOT NULL,
        PRIMARY KEY (api_key_id, day)
      )`);
    await queryRunner.query(`INSERT INTO usage_daily (api_key_id, day, requests) SELECT api_key_id, (created_at AT TIME ZONE 'UTC')::date, COUNT(*) FROM usage_events GROUP BY 1, 2`);
    await queryRunner.query(`CREATE INDEX usage_events_by_time ON usage_events (created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX usage_events_by_time`);
    await queryRunner.query(`DROP TABLE usage_daily`);
  }
}
