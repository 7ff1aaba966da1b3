import { MigrationInterface, QueryRunner } from 'typeorm';

// the days in key and day order, so that inserts of several processes at once lock them in one order (no deadlock)
export const USAGE_DAILY_COUNT_FUNCTION = `
      FUNCTION usage_daily_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO usage_daily AS d (api_key_id, day, requests)
          SELECT api_key_id, (created_at AT TIME ZONE 'UTC')::date, COUNT(*) FROM recorded GROUP BY 1, 2 ORDER BY 1, 2
          ON CONFLICT (api_key_id, day) DO UPDATE SET requests = d.requests + EXCLUDED.requests;
        RETURN NULL;
      END $$`;

export const USAGE_DAILY_COUNT_TRIGGER = `CREATE TRIGGER usage_daily_count AFTER INSERT ON usage_events REFERENCING NEW TABLE AS recorded FOR EACH STATEMENT EXECUTE FUNCTION usage_daily_count()`;

/**
 * Each key's API requests counted per UTC day: the usage summary read them by counting every
 * request of its window (half a second for a key with a million requests a week), and the requests
 * themselves are now kept 90 days. A trigger on usage_events keeps the counts, so that processes of
 * the release before, still writing during a rolling deploy, are counted too. It is created before
 * the counts are taken from the requests already stored, in one transaction: its lock holds every
 * writer until the commit, so each request is counted once.
 */
export class UsageDaily1764500000000 implements MigrationInterface {
  name = 'UsageDaily1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE usage_daily (
        api_key_id uuid NOT NULL,
        day date NOT NULL,
        requests bigint NOT NULL,
        PRIMARY KEY (api_key_id, day)
      )`);
    await queryRunner.query(`CREATE ${USAGE_DAILY_COUNT_FUNCTION}`);
    await queryRunner.query(USAGE_DAILY_COUNT_TRIGGER);
    await queryRunner.query(`INSERT INTO usage_daily (api_key_id, day, requests) SELECT api_key_id, (created_at AT TIME ZONE 'UTC')::date, COUNT(*) FROM usage_events GROUP BY 1, 2`);
    // last, after the count: the key lock on api_keys it takes lasts until the commit, and held from
    // the table's creation it kept every credit operation (each moves api_keys.credits) waiting for the count
    await queryRunner.query(`ALTER TABLE usage_daily ADD CONSTRAINT usage_daily_api_key_id_fkey FOREIGN KEY (api_key_id) REFERENCES api_keys(id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER usage_daily_count ON usage_events`);
    await queryRunner.query(`DROP FUNCTION usage_daily_count()`);
    await queryRunner.query(`DROP TABLE usage_daily`);
  }
}
