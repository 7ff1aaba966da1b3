import { RemoteRun, RemoteRunRegistry } from '../../ports/remote-run-registry';

/** The remote runs of one process (tests, and a deployment of a single process). */
export class InMemoryRemoteRunRegistry extends RemoteRunRegistry {
  private readonly runs = new Map<string, RemoteRun>();

  async find(taskKey: string): Promise<RemoteRun | null> {
    const run = this.runs.get(taskKey);
    return run ? { ...run } : null;
  }

  async remember(taskKey: string, run: RemoteRun, now: Date): Promise<void> {
    for (const [key, remembered] of this.runs) if (remembered.deadline < now) this.runs.delete(key);
    this.runs.set(taskKey, { ...run });
  }

  async forget(taskKey: string, runId: string): Promise<void> {
    if (this.runs.get(taskKey)?.id === runId) this.runs.delete(taskKey);
  }
}
