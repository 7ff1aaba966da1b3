import { PortScope, PortToken, TransactionScope, UnitOfWork } from './unit-of-work';

/** An in-memory adapter whose state a transaction can roll back: snapshot() returns the restore. */
export interface Snapshottable {
  snapshot(): () => void;
}

const isSnapshottable = (adapter: unknown): adapter is Snapshottable => typeof (adapter as Partial<Snapshottable>)?.snapshot === 'function';

/**
 * The UnitOfWork of the in-memory adapters, with the real one's observable semantics: runs are
 * serialised (as the row locks serialise them in Postgres), and a run that throws leaves every
 * adapter as it found it (rollback).
 */
export class InMemoryUnitOfWork extends UnitOfWork {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly scope: TransactionScope;

  constructor(private readonly adapters: ReadonlyMap<PortToken<unknown>, unknown>) {
    super();
    this.scope = new PortScope(adapters);
  }

  run<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T> {
    const result = this.queue.then(async () => {
      const restores = [...this.adapters.values()].filter(isSnapshottable).map((adapter) => adapter.snapshot());
      try {
        return await work(this.scope);
      } catch (error) {
        for (const restore of restores) restore();
        throw error;
      }
    });
    this.queue = result.catch(() => undefined);
    return result;
  }
}
