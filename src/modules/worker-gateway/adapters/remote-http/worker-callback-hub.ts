import { RemoteStatus } from '../../../../common/worker-protocol/runpod-protocol';

type Listener = (status: RemoteStatus) => void;

/**
 * Hands an authenticated worker callback to the gateway waiting on that job in this process, so it
 * need not wait for its next status poll. Polling stays the source of truth: a callback that lands
 * on another replica (or none) only means the result is seen one poll interval later.
 */
export class WorkerCallbackHub {
  private readonly listeners = new Map<string, Set<Listener>>();

  /** Calls `listener` with each callback for `jobId` until the returned function is called. */
  subscribe(jobId: string, listener: Listener): () => void {
    const set = this.listeners.get(jobId) ?? new Set<Listener>();
    set.add(listener);
    this.listeners.set(jobId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(jobId);
    };
  }

  /** True when a gateway in this process was waiting for the job. */
  deliver(jobId: string, status: RemoteStatus): boolean {
    const set = this.listeners.get(jobId);
    if (!set) return false;
    for (const listener of [...set]) listener(status);
    return true;
  }
}
