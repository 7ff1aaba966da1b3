import { assertTransition, canTransition, isTerminal, JOB_STATUSES, JobStatus, TERMINAL_STATUSES } from '../../../src/modules/jobs/domain/job-status';
import { domainErrorFrom } from '../support/domain-error';

/** contract.md, "Job states": the only legal transitions. */
const LEGAL: ReadonlyArray<[JobStatus, JobStatus]> = [
  ['created', 'pending'],
  ['created', 'failed'],
  ['pending', 'processing'],
  ['pending', 'failed'],
  ['processing', 'completed'],
  ['processing', 'failed'],
];
const isLegal = (from: JobStatus, to: JobStatus): boolean => LEGAL.some(([f, t]) => f === from && t === to);

const STATUSES: JobStatus[] = ['created', 'pending', 'processing', 'completed', 'failed'];
const ALL_PAIRS = STATUSES.flatMap((from) => STATUSES.map((to) => [from, to] as [JobStatus, JobStatus]));
const ILLEGAL = ALL_PAIRS.filter(([from, to]) => !isLegal(from, to));

describe('job status state machine', () => {
  it('has exactly the five contract statuses', () => {
    expect([...JOB_STATUSES].sort()).toEqual([...STATUSES].sort());
  });

  it('allows exactly the contract’s legal transitions among all pairs of its own statuses', () => {
    const allowed = JOB_STATUSES.flatMap((from) => JOB_STATUSES.filter((to) => canTransition(from, to)).map((to) => `${from} -> ${to}`));
    expect(allowed.sort()).toEqual(LEGAL.map(([from, to]) => `${from} -> ${to}`).sort());
  });

  describe.each(LEGAL)('%s -> %s (legal)', (from, to) => {
    it('is allowed by canTransition', () => {
      expect(canTransition(from, to)).toBe(true);
    });
    it('passes assertTransition', () => {
      expect(() => assertTransition(from, to)).not.toThrow();
    });
  });

  describe.each(ILLEGAL)('%s -> %s (illegal)', (from, to) => {
    it('is refused by canTransition', () => {
      expect(canTransition(from, to)).toBe(false);
    });
    it('throws invalid_state naming both statuses', () => {
      const error = domainErrorFrom(() => assertTransition(from, to));
      expect(error.code).toBe('invalid_state');
      expect(error.message).toContain(`'${from}'`);
      expect(error.message).toContain(`'${to}'`);
    });
  });

  it.each(STATUSES)('%s cannot stay %s (no self transition)', (status) => {
    expect(canTransition(status, status)).toBe(false);
  });

  it.each(['completed', 'failed'] as JobStatus[])('nothing leaves terminal %s', (terminal) => {
    for (const to of STATUSES) expect(canTransition(terminal, to)).toBe(false);
  });

  it.each([
    ['created', false],
    ['pending', false],
    ['processing', false],
    ['completed', true],
    ['failed', true],
  ] as Array<[JobStatus, boolean]>)('isTerminal(%s) is %s', (status, terminal) => {
    expect(isTerminal(status)).toBe(terminal);
  });

  it('lists completed and failed as the terminal statuses', () => {
    expect([...TERMINAL_STATUSES].sort()).toEqual(['completed', 'failed']);
  });
});
