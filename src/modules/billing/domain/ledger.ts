export type LedgerEntryKind = 'grant' | 'reserve' | 'charge' | 'release';

/**
 * Signed amounts: grant +N (or -N to deduct), reserve -R (held), release +R (the hold returned),
 * charge -C (settled). The balance is their sum, so balance = grants - charges - open reserves.
 */
export interface LedgerEntry {
  kind: LedgerEntryKind;
  amount: number;
  jobId: string | null;
}

export function balanceOf(entries: readonly LedgerEntry[]): number {
  return entries.reduce((sum, entry) => sum + entry.amount, 0);
}
