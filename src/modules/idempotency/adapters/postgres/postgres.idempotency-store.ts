import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { Sweeper } from '../../../../common/sweeper';
import { ABANDONED_AFTER_SECONDS, ClaimedKey, claimOnHeld, HeldClaim, IdempotencyClaim, IdempotencyPeek, IdempotencyScope, IdempotencyStore } from '../../ports/idempotency-store';

interface Row {
  fingerprint: string;
  status: 'in_progress' | 'completed';
  response_status: number | null;
  response_body: unknown;
  body_digest: string | null;
}

/**
 * idempotency_keys in Postgres, primary key (api_key_id, idempotency_key). The claim is an
 * INSERT .. ON CONFLICT DO NOTHING, so of any number of concurrent identical requests exactly one
 * inserts the row and does the work; the rest read the row it left.
 */
export class PostgresIdempotencyStore extends IdempotencyStore {
  /** Expired keys are deleted at most once a minute per process, off the request's path. */
  private readonly sweeper = new Sweeper(60_000, () => this.db.query(`DELETE FROM idempotency_keys WHERE expires_at < now()`));

  /** `db`: the pool, or a transaction's manager (noteCreated commits with the work it notes) */
  constructor(private readonly db: EntityManager) {
    super();
  }

  async claim(scope: IdempotencyScope, fingerprint: string, ttlSeconds: number): Promise<IdempotencyClaim> {
    this.sweeper.maybeSweep();
    const claimId = randomUUID();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const inserted: unknown[] = await this.db.query(
        `INSERT INTO idempotency_keys (api_key_id, idempotency_key, fingerprint, status, expires_at, claim_id)
         VALUES ($1, $2, $3, 'in_progress', now() + $4 * interval '1 second', $5)
         ON CONFLICT DO NOTHING RETURNING 1`,
        [scope.apiKeyId, scope.key, fingerprint, ttlSeconds, claimId],
      );
      if (inserted.length) return { kind: 'claimed', claimId };
      // An expired key starts over; an abandoned claim of the same request is taken over, with what its own work
      // created (a note another claim wrote, which a process of the release before left when it took the key over, is not)
      const [taken] = (await this.db.query(
        `UPDATE idempotency_keys
         SET fingerprint = $3, status = 'in_progress', response_status = NULL, response_body = NULL, body_digest = NULL,
             locked_at = now(), created_at = now(), expires_at = now() + $4 * interval '1 second', claim_id = $6,
             created_resource = CASE WHEN expires_at > now() AND created_under_claim = claim_id THEN created_resource END,
             created_under_claim = CASE WHEN expires_at > now() AND created_under_claim = claim_id THEN $6::uuid END
         WHERE api_key_id = $1 AND idempotency_key = $2
           AND (expires_at <= now() OR (status = 'in_progress' AND fingerprint = $3 AND locked_at < now() - $5 * interval '1 second'))
         RETURNING created_resource`,
        [scope.apiKeyId, scope.key, fingerprint, ttlSeconds, ABANDONED_AFTER_SECONDS, claimId],
      )) as [Array<{ created_resource: string | null }>, number];
      if (taken.length) return taken[0].created_resource === null ? { kind: 'claimed', claimId } : { kind: 'claimed', claimId, createdBefore: taken[0].created_resource };
      const row = await this.rowOf(scope);
      if (!row) continue; // released between our insert and our read: try again
      return claimOn(row, fingerprint);
    }
    return { kind: 'in_progress' };
  }

  async peek(scope: IdempotencyScope, fingerprint: string): Promise<IdempotencyPeek> {
    const row = await this.rowOf(scope, { liveOnly: true });
    return row ? claimOn(row, fingerprint) : { kind: 'free' };
  }

  private async rowOf(scope: IdempotencyScope, { liveOnly = false } = {}): Promise<Row | undefined> {
    const rows: Row[] = await this.db.query(
      `SELECT fingerprint, status, response_status, response_body, body_digest FROM idempotency_keys WHERE api_key_id = $1 AND idempotency_key = $2${liveOnly ? ' AND expires_at > now()' : ''}`,
      [scope.apiKeyId, scope.key],
    );
    return rows[0];
  }

  async complete(scope: IdempotencyScope, claimId: string, status: number, body: unknown, bodyDigest?: string): Promise<void> {
    await this.db.query(
      `UPDATE idempotency_keys SET status = 'completed', response_status = $4, response_body = $5::jsonb, body_digest = $6
       WHERE api_key_id = $1 AND idempotency_key = $2 AND claim_id = $3 AND status = 'in_progress'`,
      [scope.apiKeyId, scope.key, claimId, status, JSON.stringify(body ?? null), bodyDigest ?? null],
    );
  }

  async noteCreated({ scope, claimId }: ClaimedKey, resourceId: string): Promise<void> {
    await this.db.query(
      `UPDATE idempotency_keys SET created_resource = $4, created_under_claim = claim_id WHERE api_key_id = $1 AND idempotency_key = $2 AND claim_id = $3 AND status = 'in_progress'`,
      [scope.apiKeyId, scope.key, claimId, resourceId],
    );
  }

  async keepClaimed(scope: IdempotencyScope, claimId: string, ttlSeconds: number): Promise<void> {
    await this.db.query(
      `UPDATE idempotency_keys SET locked_at = now(), expires_at = GREATEST(expires_at, now() + $4 * interval '1 second')
       WHERE api_key_id = $1 AND idempotency_key = $2 AND claim_id = $3 AND status = 'in_progress'`,
      [scope.apiKeyId, scope.key, claimId, ttlSeconds],
    );
  }

  async forgetApiKey(apiKeyId: string): Promise<void> {
    await this.db.query(`DELETE FROM idempotency_keys WHERE api_key_id = $1`, [apiKeyId]);
  }

  async release(scope: IdempotencyScope, claimId: string): Promise<void> {
    await this.db.query(`DELETE FROM idempotency_keys WHERE api_key_id = $1 AND idempotency_key = $2 AND claim_id = $3 AND status = 'in_progress'`, [scope.apiKeyId, scope.key, claimId]);
  }
}

/** what a claim of `fingerprint` finds on the key's row */
function claimOn(row: Row, fingerprint: string): HeldClaim {
  const response = row.status === 'completed' ? { status: row.response_status ?? 200, body: row.response_body, bodyDigest: row.body_digest } : undefined;
  return claimOnHeld({ fingerprint: row.fingerprint, response }, fingerprint);
}
