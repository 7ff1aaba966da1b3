import { enumParam, integerParam } from '../../../src/common/http/query-params';
import { expectInvalidField } from '../support/domain-error';

const LIMIT = { min: 1, max: 100, default: 20 };
const OFFSET = { min: 0, default: 0 };

describe('integerParam', () => {
  it('absent or empty gives the default', () => {
    expect(integerParam(undefined, 'limit', LIMIT)).toBe(20);
    expect(integerParam('', 'limit', LIMIT)).toBe(20);
    expect(integerParam(undefined, 'offset', OFFSET)).toBe(0);
  });

  it.each([
    ['1', 1],
    ['2', 2],
    ['20', 20],
    ['99', 99],
    ['100', 100],
    ['007', 7],
  ])('limit=%s is %d', (raw, value) => {
    expect(integerParam(raw, 'limit', LIMIT)).toBe(value);
  });

  it.each(['0', '101', '-1', '1000'])('limit=%s is out of range', (raw) => {
    const error = expectInvalidField(() => integerParam(raw, 'limit', LIMIT), 'limit');
    expect(error.message).toContain('between 1 and 100');
  });

  it.each([
    ['0', 0],
    ['1', 1],
    ['9999999999', 9999999999],
  ])('offset=%s is %d (no upper bound)', (raw, value) => {
    expect(integerParam(raw, 'offset', OFFSET)).toBe(value);
  });

  it.each(['-1', '10000000000', '12345678901234567890123'])('offset=%s is refused with its range (eleven digits and more were "not an integer")', (raw) => {
    const error = expectInvalidField(() => integerParam(raw, 'offset', OFFSET), 'offset');
    expect(error.message).toContain('between 0 and 9999999999');
  });

  it('a limit of many digits is out of its range, as any other', () => {
    expect(expectInvalidField(() => integerParam('12345678901', 'limit', LIMIT), 'limit').message).toContain('between 1 and 100');
    expect(expectInvalidField(() => integerParam('-00000000000000000001', 'limit', LIMIT), 'limit').message).toContain('between 1 and 100');
  });

  it.each([
    ['a fraction', '1.5'],
    ['a trailing dot', '10.'],
    ['exponent', '1e2'],
    ['hex', '0x10'],
    ['letters', 'abc'],
    ['digits then letters', '10abc'],
    ['a plus sign', '+5'],
    ['spaces', ' 5'],
    ['Infinity', 'Infinity'],
    ['a bare minus', '-'],
  ])('refuses %s as not an integer', (_name, raw) => {
    const error = expectInvalidField(() => integerParam(raw, 'limit', LIMIT), 'limit');
    expect(error.message).toContain('integer');
  });

  it.each([
    ['a repeated parameter (array)', ['1', '2']],
    ['a nested object', { a: '1' }],
    ['a number', 5],
    ['null', null],
  ])('refuses %s', (_name, raw) => {
    expectInvalidField(() => integerParam(raw, 'limit', LIMIT), 'limit');
  });
});

describe('enumParam', () => {
  const STATUSES = ['created', 'pending', 'processing', 'completed', 'failed'] as const;

  it('absent or empty is undefined', () => {
    expect(enumParam(undefined, 'status', STATUSES)).toBeUndefined();
    expect(enumParam('', 'status', STATUSES)).toBeUndefined();
  });

  it.each([...STATUSES])('accepts %s', (status) => {
    expect(enumParam(status, 'status', STATUSES)).toBe(status);
  });

  it.each(['Pending', 'PENDING', ' pending', 'pending ', 'done', 'toString', 'constructor'])('refuses %j, listing the values', (raw) => {
    const error = expectInvalidField(() => enumParam(raw, 'status', STATUSES), 'status');
    expect(error.message).toContain('created, pending, processing, completed, failed');
  });

  it.each([
    ['an array', ['pending']],
    ['a number', 1],
    ['null', null],
    ['an object', { status: 'pending' }],
  ])('refuses %s', (_name, raw) => {
    expectInvalidField(() => enumParam(raw, 'status', STATUSES), 'status');
  });
});
