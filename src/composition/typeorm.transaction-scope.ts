import { EntityManager } from 'typeorm';
import { PortScope, PortToken, TransactionScope } from '../common/unit-of-work';
import { ApiKeyRecord } from '../modules/auth/adapters/typeorm/api-key.record';
import { TypeOrmApiKeyRepository } from '../modules/auth/adapters/typeorm/typeorm.api-key.repository';
import { ApiKeyRepository } from '../modules/auth/ports/api-key.repository';
import { TypeOrmCreditLedger } from '../modules/billing/adapters/typeorm/typeorm.credit-ledger';
import { CreditLedger } from '../modules/billing/ports/credit-ledger';
import { PostgresIdempotencyStore } from '../modules/idempotency/adapters/postgres/postgres.idempotency-store';
import { IdempotencyStore } from '../modules/idempotency/ports/idempotency-store';
import { JobRecord } from '../modules/jobs/adapters/typeorm/job.record';
import { TypeOrmJobEventLog } from '../modules/jobs/adapters/typeorm/typeorm.job-event-log';
import { TypeOrmJobRepository } from '../modules/jobs/adapters/typeorm/typeorm.job.repository';
import { JobEventLog } from '../modules/jobs/ports/job-event-log';
import { JobRepository } from '../modules/jobs/ports/job.repository';
import { TypeOrmUploadRepository } from '../modules/uploads/adapters/typeorm/typeorm.upload.repository';
import { UploadRecord } from '../modules/uploads/adapters/typeorm/upload.record';
import { UploadRepository } from '../modules/uploads/ports/upload.repository';
import { TypeOrmWebhookOutbox } from '../modules/webhooks/adapters/typeorm/typeorm.webhook-outbox';
import { WebhookOutbox } from '../modules/webhooks/ports/webhook-outbox';

/** Every TypeORM entity of the modules (the data source registers them). */
export const ENTITIES = [ApiKeyRecord, JobRecord, UploadRecord];

/** The ports a transaction offers and the TypeORM adapter of each, bound to the transaction's manager. */
const TRANSACTIONAL_ADAPTERS: Array<[PortToken<unknown>, (manager: EntityManager) => unknown]> = [
  [ApiKeyRepository, (manager) => new TypeOrmApiKeyRepository(manager.getRepository(ApiKeyRecord))],
  [JobRepository, (manager) => new TypeOrmJobRepository(manager.getRepository(JobRecord))],
  [CreditLedger, (manager) => new TypeOrmCreditLedger(manager)],
  [JobEventLog, (manager) => new TypeOrmJobEventLog(manager)],
  [WebhookOutbox, (manager) => new TypeOrmWebhookOutbox(manager)],
  [UploadRepository, (manager) => new TypeOrmUploadRepository(manager.getRepository(UploadRecord))],
  [IdempotencyStore, (manager) => new PostgresIdempotencyStore(manager)],
];

/** The ports used inside transactions: an adapter swapped for one of them must be swapped in the UnitOfWork's scope too. */
export const TRANSACTIONAL_PORTS: ReadonlyArray<PortToken<unknown>> = TRANSACTIONAL_ADAPTERS.map(([port]) => port);

export function typeOrmScopeOf(manager: EntityManager): TransactionScope {
  return new PortScope(new Map(TRANSACTIONAL_ADAPTERS.map(([port, adapterOf]) => [port, adapterOf(manager)])));
}
