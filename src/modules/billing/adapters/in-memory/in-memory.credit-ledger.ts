import type { Snapshottable } from '../../../../common/in-memory.unit-of-work';
import { balanceOf, LedgerEntry } from '../../domain/ledger';
import { CreditLedger } from '../../ports/credit-ledger';

/** The append-only ledger in memory, with the TypeORM adapter's rules: never negative, settle and release idempotent. */
export class InMemoryCreditLedger extends CreditLedger implements Snapshottable {
  private entries: Array<LedgerEntry & { apiKeyId: string; at: Date }> = [];

  snapshot(): () => void {
    const saved = [...this.entries];
    return () => {
      this.entries = saved;
    };
  }

  async grant(apiKeyId: string, amount: number, _note: string | null): Promise<number> {
    const balance = await this.balance(apiKeyId);
    const applied = Math.max(Math.trunc(amount), -balance);
    if (applied !== 0) this.append(apiKeyId, null, 'grant', applied);
    return balance + applied;
  }

  /** nothing to lock: the in-memory unit of work runs one transaction at a time */
  async lock(_apiKeyId: string): Promise<void> {}

  async reserve(apiKeyId: string, jobId: string, amount: number): Promise<boolean> {
    if ((await this.balance(apiKeyId)) < amount) return false;
    this.append(apiKeyId, jobId, 'reserve', 0 - amount);
    return true;
  }

  async settle(apiKeyId: string, jobId: string, charge: number): Promise<number> {
    const held = this.openHold(jobId);
    if (held === null) return 0 - (this.entries.find((entry) => entry.jobId === jobId && entry.kind === 'charge')?.amount ?? 0);
    const charged = Math.min(Math.max(0, charge), held);
    this.append(apiKeyId, jobId, 'release', held);
    this.append(apiKeyId, jobId, 'charge', 0 - charged);
    return charged;
  }

  async release(apiKeyId: string, jobId: string): Promise<void> {
    const held = this.openHold(jobId);
    if (held !== null) this.append(apiKeyId, jobId, 'release', held);
  }

  async balance(apiKeyId: string): Promise<number> {
    return balanceOf(this.entries.filter((entry) => entry.apiKeyId === apiKeyId));
  }

  /** The charges of a key (what usage reports as credits used), each with its time. */
  charges(apiKeyId: string): Array<{ amount: number; at: Date }> {
    return this.entries.filter((entry) => entry.apiKeyId === apiKeyId && entry.kind === 'charge').map((entry) => ({ amount: 0 - entry.amount, at: entry.at }));
  }

  private openHold(jobId: string): number | null {
    const ofJob = this.entries.filter((entry) => entry.jobId === jobId);
    const reserve = ofJob.find((entry) => entry.kind === 'reserve');
    if (!reserve || ofJob.some((entry) => entry.kind === 'release')) return null;
    return 0 - reserve.amount;
  }

  private append(apiKeyId: string, jobId: string | null, kind: LedgerEntry['kind'], amount: number): void {
    this.entries.push({ apiKeyId, jobId, kind, amount, at: new Date() });
  }
}
