import { MigrationInterface, QueryRunner } from 'typeorm';
import { consumeFunction } from './1764300000000-rate-limit-window-never-back';
import { USAGE_DAILY_COUNT_FUNCTION, USAGE_DAILY_COUNT_TRIGGER } from './1764500000000-usage-daily';
import { BUILT } from './1764800000000-indexes-at-scale';

/**
 * Four migrations were changed after they were first committed (test/integration/migrations.spec.ts
 * now pins every migration's text). A database migrated by an earlier version of one of them has it
 * recorded as done and never got the change. This makes what the current versions make, where it is
 * missing, and changes nothing where it is there:
 * - WebhookSecretRotation: `previous_webhook_secrets` (it had two columns for one previous secret,
 *   whose secret, while still valid, moves over);
 * - RateLimitWindowNeverBack: rate_limit_consume answers the window it counted in (`window_start`);
 * - UsageDaily: the trigger that counts each day's requests (the flush of the release before counted them);
 * - IndexesAtScale: the index of finished webhook deliveries.
 * Outside a transaction (an index built CONCURRENTLY); every step can run again after a crash.
 */
export class RepairEditedMigrations1764900000000 implements MigrationInterface {
  name = 'RepairEditedMigrations1764900000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await this.webhookSecrets(queryRunner);
    await this.rateLimitWindow(queryRunner);
    await this.usageDailyTrigger(queryRunner);
    const finished = BUILT.find(([index]) => index === 'webhook_deliveries_finished');
    if (!finished) throw new Error('IndexesAtScale builds webhook_deliveries_finished');
    const [name, definition] = finished;
    const invalid: unknown[] = await queryRunner.query(`SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = $1 AND NOT i.indisvalid`, [name]);
    if (invalid.length) await queryRunner.query(`DROP INDEX CONCURRENTLY ${name}`);
    await queryRunner.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ${definition}`);
  }

  /** it repairs, and undoes nothing: the migrations before it own what it made */
  async down(): Promise<void> {}

  private async webhookSecrets(queryRunner: QueryRunner): Promise<void> {
    // looked for first: an ALTER locks api_keys (every authentication) even where it changes nothing
    const has = async (column: string) => ((await queryRunner.query(`SELECT 1 FROM information_schema.columns WHERE table_name = 'api_keys' AND column_name = $1`, [column])) as unknown[]).length > 0;
    if (!(await has('previous_webhook_secrets'))) await queryRunner.query(`ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS previous_webhook_secrets jsonb NOT NULL DEFAULT '[]'`);
    if (!(await has('previous_webhook_secret_until'))) return;
    await queryRunner.query(`
      UPDATE api_keys SET previous_webhook_secrets = jsonb_build_array(jsonb_build_object('secret', previous_webhook_secret, 'validUntil', to_char(previous_webhook_secret_until AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
       WHERE previous_webhook_secret IS NOT NULL AND previous_webhook_secret_until > now() AND previous_webhook_secrets = '[]'`);
    await queryRunner.query(`ALTER TABLE api_keys DROP COLUMN IF EXISTS previous_webhook_secret, DROP COLUMN IF EXISTS previous_webhook_secret_until`);
  }

  private async rateLimitWindow(queryRunner: QueryRunner): Promise<void> {
    const [current]: Array<{ result: string }> = await queryRunner.query(`SELECT pg_get_function_result('rate_limit_consume(text, bigint, bigint, bigint)'::regprocedure) AS result`);
    if (current.result.includes('window_start')) return;
    await inTransaction(queryRunner, async () => {
      await queryRunner.query(`DROP FUNCTION rate_limit_consume(text, bigint, bigint, bigint)`);
      await queryRunner.query(consumeFunction(true));
    });
  }

  /**
   * Where the trigger is missing, the days since that version went uncounted (its flush counted them,
   * this release's does not): they are counted again from the requests still kept (90 days), the
   * trigger created first in the same transaction (its lock holds the writers until the commit).
   */
  private async usageDailyTrigger(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE OR REPLACE ${USAGE_DAILY_COUNT_FUNCTION}`);
    const trigger: unknown[] = await queryRunner.query(`SELECT 1 FROM pg_trigger WHERE tgname = 'usage_daily_count' AND tgrelid = 'usage_events'::regclass`);
    if (trigger.length) return;
    await inTransaction(queryRunner, async () => {
      await queryRunner.query(USAGE_DAILY_COUNT_TRIGGER);
      await queryRunner.query(`
        INSERT INTO usage_daily AS d (api_key_id, day, requests)
          SELECT api_key_id, (created_at AT TIME ZONE 'UTC')::date, COUNT(*) FROM usage_events GROUP BY 1, 2 ORDER BY 1, 2
          ON CONFLICT (api_key_id, day) DO UPDATE SET requests = GREATEST(d.requests, EXCLUDED.requests)`);
    });
  }
}

async function inTransaction(queryRunner: QueryRunner, work: () => Promise<void>): Promise<void> {
  await queryRunner.startTransaction();
  try {
    await work();
    await queryRunner.commitTransaction();
  } catch (error) {
    await queryRunner.rollbackTransaction();
    throw error;
  }
}
