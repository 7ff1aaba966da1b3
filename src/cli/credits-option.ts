import { MAX_CREDITS_AT_ONCE } from '../modules/auth/domain/api-key';

/**
 * `--credits` as an operator types it: decimal digits with an optional sign, within what the admin
 * API takes at once. Number() alone took `1e3` and `0x10`, rounded 9007199254740993 silently, and
 * let a grant push a balance past Postgres's bigint, after which every grant was a 500.
 */
export function creditsOption(value: string, name: string, { allowNegative }: { allowNegative: boolean }): number {
  if (!/^[-+]?\d+$/.test(value)) throw new Error(`--${name} must be a whole number of credits in decimal digits`);
  const credits = Number(value);
  const min = allowNegative ? -MAX_CREDITS_AT_ONCE : 0;
  if (credits < min || credits > MAX_CREDITS_AT_ONCE) throw new Error(`--${name} must be from ${min} to ${MAX_CREDITS_AT_ONCE}`);
  return credits;
}
