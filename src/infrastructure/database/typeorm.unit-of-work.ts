import { DataSource, EntityManager } from 'typeorm';
import { TransactionScope, UnitOfWork } from '../../common/unit-of-work';

/** Binds the ports of one transaction to its EntityManager (given by the composition root). */
export type ScopeFactory = (manager: EntityManager) => TransactionScope;

/** A Postgres transaction per run; the scope's adapters all write through its manager. */
export class TypeOrmUnitOfWork extends UnitOfWork {
  constructor(
    private readonly dataSource: DataSource,
    private readonly scopeOf: ScopeFactory,
  ) {
    super();
  }

  run<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(this.scopeOf(manager)));
  }
}
