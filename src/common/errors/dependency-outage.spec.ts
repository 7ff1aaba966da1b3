import { isDependencyOutage } from './dependency-outage';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isDependencyOutage', () => {
  it.each([
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a connection Postgres lost mid-query', new Error('Connection terminated unexpectedly')],
    ['Postgres shutting down (57P01)', withCode('terminating connection due to administrator command', '57P01')],
    ['Postgres starting up (57P03)', withCode('the database system is starting up', '57P03')],
    ['too many connections (53300)', withCode('sorry, too many clients already', '53300')],
    ["Postgres's disk full (53100: a 500 to every create, a completion not recorded)", withCode('could not extend file "base/16384/16451": No space left on device', '53100')],
    ['Postgres out of memory (53200)', withCode('out of memory', '53200')],
    ['a connection exception (08006)', withCode('connection failure', '08006')],
    ['a pool that could not connect in time', new Error('timeout exceeded when trying to connect')],
    ["ioredis's closed connection", new Error('Connection is closed.')],
    ['a full disk', withCode('ENOSPC: no space left on device, write', 'ENOSPC')],
    ['a process out of file handles', withCode('EMFILE: too many open files', 'EMFILE')],
    ['TypeORM wrapping the driver error', Object.assign(new Error('Query failed'), { driverError: withCode('read ECONNRESET', 'ECONNRESET') })],
    ['a cause', new Error('storing the output failed', { cause: withCode('connect ETIMEDOUT', 'ETIMEDOUT') })],
    ['every address refused (AggregateError)', new AggregateError([withCode('a', 'ECONNREFUSED'), withCode('b', 'ECONNREFUSED')], 'connect failed')],
  ])('is an outage: %s', (_case, error) => {
    expect(isDependencyOutage(error)).toBe(true);
  });

  it.each([
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a syntax error in SQL (42601)', withCode('syntax error at or near "FROM"', '42601')],
    ['a unique violation (23505)', withCode('duplicate key value violates unique constraint', '23505')],
    ['a configured limit (53400)', withCode('too many range table entries', '53400')],
    ['an AggregateError that is not all outages', new AggregateError([withCode('a', 'ECONNREFUSED'), new Error('b')], 'mixed')],
    ['not an error', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('is not an outage: %s', (_case, error) => {
    expect(isDependencyOutage(error)).toBe(false);
  });

  it('ends on a cycle of causes', () => {
    const error = new Error('loop') as Error & { cause?: unknown };
    error.cause = error;
    expect(isDependencyOutage(error)).toBe(false);
  });
});
