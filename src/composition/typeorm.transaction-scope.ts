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
export function typeOrmScopeOf(manager: EntityManager): TransactionScope {
  const adapters: Array<[PortToken<unknown>, unknown]> = [
    [ApiKeyRepository, new TypeOrmApiKeyRepository(manager.getRepository(ApiKeyRecord))],
    [JobRepository, new TypeOrmJobRepository(manager.getRepository(JobRecord))],
    [CreditLedger, new TypeOrmCreditLedger(manager)],
    [JobEventLog, new TypeOrmJobEventLog(manager)],
    [WebhookOutbox, new TypeOrmWebhookOutbox(manager)],
    [UploadRepository, new TypeOrmUploadRepository(manager.getRepository(UploadRecord))],
    [IdempotencyStore, new PostgresIdempotencyStore(manager)],
  ];
  return new PortScope(new Map(adapters));
}
