import { DomainError } from '../../../src/common/errors/domain-error';

/** Runs `fn` and returns the DomainError it throws; fails the test when it returns or throws anything else. */
export function domainErrorFrom(fn: () => unknown): DomainError {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  if (thrown === undefined) throw new Error('expected a DomainError, but nothing was thrown');
  if (!(thrown instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(thrown)}`);
  return thrown;
}

/** Asserts `fn` throws a 400 invalid_request naming `field` (in `details` and in the message). */
export function expectInvalidField(fn: () => unknown, field: string): DomainError {
  const error = domainErrorFrom(fn);
  expect(error.code).toBe('invalid_request');
  expect(error.details?.map((d) => d.field)).toEqual([field]);
  expect(error.message.startsWith(`${field}:`)).toBe(true);
  return error;
}
