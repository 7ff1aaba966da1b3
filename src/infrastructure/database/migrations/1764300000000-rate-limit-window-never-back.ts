import { MigrationInterface, QueryRunner } from 'typeorm';

/** rate_limit_consume as it is with `countInStoredWindow` (and the window it counted in), and as it was without */
export const consumeFunction = (countInStoredWindow: boolean) => `
  CREATE FUNCTION rate_limit_consume(p_key text, p_limit bigint, p_window bigint, p_now bigint)
  RETURNS TABLE (previous_hits integer, current_hits integer, elapsed_ms bigint, admitted boolean${countInStoredWindow ? ', window_start bigint' : ''})
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
    elapsed_ms := p_now - v_start;
    ${countInStoredWindow ? `IF v_stored.window_start > v_start THEN
      v_start := v_stored.window_start;
      elapsed_ms := 0;
    END IF;` : ''}
    IF v_stored.window_start = v_start THEN
      previous_hits := v_stored.previous_hits;
      current_hits := v_stored.current_hits;
    ELSIF v_stored.window_start = v_start - p_window THEN
      previous_hits := v_stored.current_hits;
    END IF;
    admitted := previous_hits::bigint * (p_window - elapsed_ms) + (current_hits::bigint + 1) * p_window <= p_limit * p_window;
    IF admitted THEN
      current_hits := current_hits + 1;
    END IF;
    UPDATE rate_limit_windows w SET window_start = v_start, previous_hits = rate_limit_consume.previous_hits, current_hits = rate_limit_consume.current_hits,
      expires_at = now() + (2 * p_window) * interval '1 millisecond'
      WHERE w.key = p_key;
    ${countInStoredWindow ? 'window_start := v_start;' : ''}
    RETURN NEXT;
  END $$`;

const DROP_CONSUME = 'DROP FUNCTION rate_limit_consume(text, bigint, bigint, bigint)';

/**
 * A request stamped before its key's stored window (another replica's clock a little behind, or a
 * time read just before a window's end that reached the database after one read just after it) is
 * counted in the stored window at its start, as the Redis and in-memory stores now count it
 * (countsAt in src/modules/rate-limit/domain/sliding-window.ts). Counted as a window of its own, it
 * found no counts, was admitted, and moved the window back: the next requests forgot a whole
 * window's count, and a burst spread over replicas at a window's edge got about twice the limit.
 * The function also answers the window it counted in, where a release gives the request back.
 */
export class RateLimitWindowNeverBack1764300000000 implements MigrationInterface {
  name = 'RateLimitWindowNeverBack1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(DROP_CONSUME);
    await queryRunner.query(consumeFunction(true));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(DROP_CONSUME);
    await queryRunner.query(consumeFunction(false));
  }
}
