/**
 * The append-only credit ledger of a key. Every method runs inside the caller's transaction and
 * locks the key's row, so concurrent starts are serialised and can never overdraw.
 */
export abstract class CreditLedger {
  /** Adds (or with a negative amount deducts, never below zero) credits; returns the new balance. */
  abstract grant(apiKeyId: string, amount: number, note: string | null): Promise<number>;
  /** Locks the key's ledger for the rest of the transaction, as every write does first: for a caller that reads what decides its write after the lock. */
  abstract lock(apiKeyId: string): Promise<void>;
  /** Holds `amount` for a job; false (nothing written) when the balance does not cover it. */
  abstract reserve(apiKeyId: string, jobId: string, amount: number): Promise<boolean>;
  /** Charges `charge` (at most the reserve) and returns the rest of the hold; returns what was charged. Idempotent. */
  abstract settle(apiKeyId: string, jobId: string, charge: number): Promise<number>;
  /** Returns the whole hold of a failed job. Idempotent. */
  abstract release(apiKeyId: string, jobId: string): Promise<void>;
  abstract balance(apiKeyId: string): Promise<number>;
}
