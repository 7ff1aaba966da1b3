import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Postgres rate-limit store moves from fixed-window counters to the sliding window of
 * src/modules/rate-limit/domain/sliding-window.ts, applied by one function call per request.
 */
export class SlidingWindowRateLimits1763910000000 implements MigrationInterface {
  name = 'SlidingWindowRateLimits1763910000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE rate_limit_counters`);
    // Unlogged: cheap to write; a crash forgets at most two windows of counts.
    await queryRunner.query(`
      CREATE UNLOGGED TABLE rate_limit_windows (
        key text PRIMARY KEY,
        window_start bigint NOT NULL,
        previous_hits integer NOT NULL,
        current_hits integer NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX rate_limit_windows_expiry ON rate_limit_windows (expires_at)`);
    // Same arithmetic as the Redis script and the in-memory store; the row lock serialises one key's requests.
    await queryRunner.query(`
      CREATE FUNCTION rate_limit_consume(p_key text, p_limit bigint, p_window bigint, p_now bigint)
      RETURNS TABLE (previous_hits integer, current_hits integer, elapsed_ms bigint, admitted boolean)
      LANGUAGE plpgsql AS $$
      DECLARE
        v_start bigint := p_now - (p_now % p_window);
        v_stored rate_limit_windows%ROWTYPE;
      BEGIN
        INSERT INTO rate_limit_windows AS w (key, window_start, previous_hits, current_hits, expires_at)
          VALUES (p_key, v_start, 0, 0, now()) ON CONFLICT (key) DO NOTHING;
        SELECT * INTO v_stored FROM rate_limit_windows w WHERE w.key = p_key FOR UPDATE;
        previous_hits := 0;
        current_hits := 0;
        IF v_stored.window_start = v_start THEN
          previous_hits := v_stored.previous_hits;
          current_hits := v_stored.current_hits;
        ELSIF v_stored.window_start = v_start - p_window THEN
          previous_hits := v_stored.current_hits;
        END IF;
        elapsed_ms := p_now - v_start;
        admitted := previous_hits::bigint * (p_window - elapsed_ms) + (current_hits::bigint + 1) * p_window <= p_limit * p_window;
        IF admitted THEN
          current_hits := current_hits + 1;
        END IF;
        UPDATE rate_limit_windows w SET window_start = v_start, previous_hits = rate_limit_consume.previous_hits, current_hits = rate_limit_consume.current_hits,
          expires_at = now() + (2 * p_window) * interval '1 millisecond'
          WHERE w.key = p_key;
        RETURN NEXT;
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION rate_limit_consume(text, bigint, bigint, bigint)`);
    await queryRunner.query(`DROP TABLE rate_limit_windows`);
    await queryRunner.query(`CREATE UNLOGGED TABLE rate_limit_counters (key text PRIMARY KEY, hits integer NOT NULL, expires_at timestamptz NOT NULL)`);
    await queryRunner.query(`CREATE INDEX rate_limit_counters_expiry ON rate_limit_counters (expires_at)`);
  }
}
