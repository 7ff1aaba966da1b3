import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { TransactionScope, UnitOfWork } from '../../common/unit-of-work';
import { ApiKeyRecord } from '../../modules/auth/adapters/typeorm/api-key.record';
import { TypeOrmApiKeyRepository } from '../../modules/auth/adapters/typeorm/typeorm.api-key.repository';
import { TypeOrmCreditLedger } from '../../modules/billing/adapters/typeorm/typeorm.credit-ledger';
import { JobRecord } from '../../modules/jobs/adapters/typeorm/job.record';
import { TypeOrmJobEventLog } from '../../modules/jobs/adapters/typeorm/typeorm.job-event-log';
import { TypeOrmJobRepository } from '../../modules/jobs/adapters/typeorm/typeorm.job.repository';
import { TypeOrmWebhookOutbox } from '../../modules/webhooks/adapters/typeorm/typeorm.webhook-outbox';

export function scopeOf(manager: EntityManager): TransactionScope {
  return {
    apiKeys: new TypeOrmApiKeyRepository(manager.getRepository(ApiKeyRecord)),
    jobs: new TypeOrmJobRepository(manager.getRepository(JobRecord)),
    ledger: new TypeOrmCreditLedger(manager),
    jobEvents: new TypeOrmJobEventLog(manager),
    webhooks: new TypeOrmWebhookOutbox(manager),
  };
}

@Injectable()
export class TypeOrmUnitOfWork extends UnitOfWork {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  run<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(scopeOf(manager)));
  }
}
