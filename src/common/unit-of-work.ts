import type { ApiKeyRepository } from '../modules/auth/ports/api-key.repository';
import type { CreditLedger } from '../modules/billing/ports/credit-ledger';
import type { JobEventLog } from '../modules/jobs/ports/job-event-log';
import type { JobRepository } from '../modules/jobs/ports/job.repository';
import type { WebhookOutbox } from '../modules/webhooks/ports/webhook-outbox';

/** Repositories bound to one database transaction. */
export interface TransactionScope {
  apiKeys: ApiKeyRepository;
  jobs: JobRepository;
  ledger: CreditLedger;
  jobEvents: JobEventLog;
  webhooks: WebhookOutbox;
}

/** Runs work atomically: a state change and every row that must follow it commit together or not at all. */
export abstract class UnitOfWork {
  abstract run<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T>;
}
