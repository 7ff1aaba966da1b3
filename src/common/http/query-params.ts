import { DomainError } from '../errors/domain-error';

/** the largest value a parameter without a maximum of its own takes (ten digits) */
const LARGEST_INTEGER_PARAM = 9_999_999_999;

/** An integer query parameter within [min, max], or the default when absent; anything else is a 400 naming it. */
export function integerParam(value: unknown, field: string, range: { min: number; max?: number; default: number }): number {
  if (value === undefined || value === '') return range.default;
  if (typeof value !== 'string' || !/^-?\d+$/.test(value)) throw DomainError.invalid(field, 'must be an integer');
  const max = range.max ?? LARGEST_INTEGER_PARAM;
  // a number of many digits is not exact as a double, but still on the same side of the bounds
  const parsed = Number(value);
  if (parsed < range.min || parsed > max) throw DomainError.invalid(field, `must be between ${range.min} and ${max}`);
  return parsed;
}

export function enumParam<T extends string>(value: unknown, field: string, allowed: readonly T[]): T | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !allowed.includes(value as T)) throw DomainError.invalid(field, `must be one of ${allowed.join(', ')}`);
  return value as T;
}
