import { EntityManager } from 'typeorm';
import { CreditLedger } from '../../ports/credit-ledger';

/**
 * The ledger in Postgres; api_keys.credits is the balance's projection, updated by the same
 * statement that appends each entry (append), so the balance is read from it in constant time: a
 * sum over the key's whole ledger took 37-53 ms at 300,000 entries, while the key's row was locked.
 */
export class TypeOrmCreditLedger extends CreditLedger {
  constructor(private readonly manager: EntityManager) {
    super();
  }

  async grant(apiKeyId: string, amount: number, note: string | null): Promise<number> {
    const balance = await this.lockedBalance(apiKeyId);
    const applied = Math.max(Math.trunc(amount), -balance);
    if (applied !== 0) await this.append(apiKeyId, null, 'grant', applied, note);
    return balance + applied;
  }

  async lock(apiKeyId: string): Promise<void> {
    await this.lockedBalance(apiKeyId);
  }

  async reserve(apiKeyId: string, jobId: string, amount: number): Promise<boolean> {
    const balance = await this.lockedBalance(apiKeyId);
    if (balance < amount) return false;
    await this.append(apiKeyId, jobId, 'reserve', 0 - amount, null);
    return true;
  }

  async settle(apiKeyId: string, jobId: string, charge: number): Promise<number> {
    await this.lockedBalance(apiKeyId);
    const held = await this.openHold(jobId);
    if (held === null) return this.charged(jobId);
    const charged = Math.min(Math.max(0, charge), held);
    await this.append(apiKeyId, jobId, 'release', held, null);
    await this.append(apiKeyId, jobId, 'charge', 0 - charged, null);
    return charged;
  }

  async release(apiKeyId: string, jobId: string): Promise<void> {
    await this.lockedBalance(apiKeyId);
    const held = await this.openHold(jobId);
    if (held !== null) await this.append(apiKeyId, jobId, 'release', held, null);
  }

  async balance(apiKeyId: string): Promise<number> {
    return this.credits(apiKeyId, '');
  }

  /**
   * Locks the key's row (serialising every ledger write of that key) and reads the balance. FOR NO
   * KEY UPDATE, the lock the balance's own UPDATE takes: it leaves the row's key free for the rows
   * that reference it. FOR UPDATE waited on the key lock that a job inserted earlier in another
   * transaction holds: two auto-started jobs of one key, each inserted then reserving, deadlocked
   * (a 500).
   */
  private lockedBalance(apiKeyId: string): Promise<number> {
    return this.credits(apiKeyId, 'FOR NO KEY UPDATE');
  }

  /** the key's balance (0 for a key that does not exist), read with `lock` */
  private async credits(apiKeyId: string, lock: '' | 'FOR NO KEY UPDATE'): Promise<number> {
    const rows: Array<{ credits: string }> = await this.manager.query(`SELECT credits FROM api_keys WHERE id = $1 ${lock}`, [apiKeyId]);
    return rows.length ? Number(rows[0].credits) : 0;
  }

  /** The reserve of a job not yet released, or null. */
  private async openHold(jobId: string): Promise<number | null> {
    const rows: Array<{ kind: string; amount: string }> = await this.manager.query(`SELECT kind, amount FROM credit_ledger WHERE job_id = $1`, [jobId]);
    const reserve = rows.find((row) => row.kind === 'reserve');
    if (!reserve || rows.some((row) => row.kind === 'release')) return null;
    return 0 - Number(reserve.amount);
  }

  private async charged(jobId: string): Promise<number> {
    const rows: Array<{ amount: string }> = await this.manager.query(`SELECT amount FROM credit_ledger WHERE job_id = $1 AND kind = 'charge'`, [jobId]);
    return rows.length ? 0 - Number(rows[0].amount) : 0;
  }

  /** the entry and the balance it moves, in one statement */
  private async append(apiKeyId: string, jobId: string | null, kind: string, amount: number, note: string | null): Promise<void> {
    await this.manager.query(
      `WITH entry AS (INSERT INTO credit_ledger (api_key_id, job_id, kind, amount, note) VALUES ($1, $2, $3, $4, $5))
       UPDATE api_keys SET credits = credits + $4 WHERE id = $1`,
      [apiKeyId, jobId, kind, amount, note],
    );
  }
}
