import { DomainError } from '../errors/domain-error';

/** An integer query parameter within [min, max], or the default when absent; anything else is a 400 naming it. */
export function integerParam(value: unknown, field: string, range: { min: number; max?: number; default: number }): number {
  if (value === undefined || value === '') return range.default;
  if (typeof value !== 'string' || !/^-?\d{1,10}$/.test(value)) throw DomainError.invalid(field, 'must be an integer');
  const parsed = Number(value);
  if (parsed < range.min || (range.max !== undefined && parsed > range.max)) {
    throw DomainError.invalid(field, range.max !== undefined ? `must be between ${range.min} and ${range.max}` : `must be at least ${range.min}`);
  }
  return parsed;
}

export function enumParam<T extends string>(value: unknown, field: string, allowed: readonly T[]): T | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !allowed.includes(value as T)) throw DomainError.invalid(field, `must be one of ${allowed.join(', ')}`);
  return value as T;
}
