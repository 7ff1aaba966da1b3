/** A port's injection token: the abstract class itself. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type PortToken<T> = abstract new (...args: any[]) => T;

/**
 * The repositories bound to one database transaction, looked up by their port
 * (`tx.get(JobRepository)`). Which ports a transaction offers is decided by the composition root
 * (src/composition), so this file knows no module.
 */
export interface TransactionScope {
  get<T>(port: PortToken<T>): T;
}

/** Runs work atomically: a state change and every row that must follow it commit together or not at all. */
export abstract class UnitOfWork {
  abstract run<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T>;
}

/** A scope over a fixed set of adapters; asking for a port it was not given is a programming error. */
export class PortScope implements TransactionScope {
  constructor(private readonly adapters: ReadonlyMap<PortToken<unknown>, unknown>) {}

  get<T>(port: PortToken<T>): T {
    const adapter = this.adapters.get(port);
    if (adapter === undefined) throw new Error(`No ${port.name} in this transaction scope`);
    return adapter as T;
  }
}
