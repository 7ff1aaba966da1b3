import { EntityManager } from 'typeorm';
import { CreditLedger } from '../../ports/credit-ledger';

/** The ledger in Postgres; api_keys.credits is the balance's projection, updated in the same transaction. */
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
    const rows: Array<{ balance: string }> = await this.manager.query(`SELECT COALESCE(SUM(amount), 0) AS balance FROM credit_ledger WHERE api_key_id = $1`, [apiKeyId]);
    return Number(rows[0].balance);
  }

  /**
   * Locks the key's row (serialising every ledger write of that key) and reads the balance. FOR NO
   * KEY UPDATE, the lock the balance's own UPDATE takes: it leaves the row's key free for the rows
   * that reference it. FOR UPDATE waited on the key lock that a job inserted earlier in another
   * transaction holds: two auto-started jobs of one key, each inserted then reserving, deadlocked
   * (a 500).
   */
  private async lockedBalance(apiKeyId: string): Promise<number> {
    await this.manager.query(`SELECT id FROM api_keys WHERE id = $1 FOR NO KEY UPDATE`, [apiKeyId]);
    return this.balance(apiKeyId);
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

  private async append(apiKeyId: string, jobId: string | null, kind: string, amount: number, note: string | null): Promise<void> {
    await this.manager.query(`INSERT INTO credit_ledger (api_key_id, job_id, kind, amount, note) VALUES ($1, $2, $3, $4, $5)`, [apiKeyId, jobId, kind, amount, note]);
    await this.manager.query(`UPDATE api_keys SET credits = credits + $2 WHERE id = $1`, [apiKeyId, amount]);
  }
}
