import { DomainError } from '../../../common/errors/domain-error';

import { JobStatus, TERMINAL_STATUSES } from '../../../contract/job-status';

export { JOB_STATUSES, TERMINAL_STATUSES } from '../../../contract/job-status';
export type { JobStatus } from '../../../contract/job-status';

/** The legal transitions of contract.md, and nothing else. */
const TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  created: ['pending', 'failed'],
  pending: ['processing', 'failed'],
  processing: ['completed', 'failed'],
  completed: [],
  failed: [],
};

export function isTerminal(status: JobStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function assertTransition(from: JobStatus, to: JobStatus): void {
  if (!canTransition(from, to)) {
    throw new DomainError('invalid_state', `A job in status '${from}' cannot become '${to}'`);
  }
}
