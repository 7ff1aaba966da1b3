import { randomUUID } from 'node:crypto';
import { RemoteRunRegistry } from '../../src/modules/worker-gateway/ports/remote-run-registry';

/** What every RemoteRunRegistry must do (on Postgres in repositories.contract.spec.ts, in memory in in-memory.contract.spec.ts). */
export function describeRemoteRunRegistryContract(registry: () => RemoteRunRegistry): void {
  describe('RemoteRunRegistry contract', () => {
    const task = () => `outputs/job_${randomUUID()}.webm`;
    const now = new Date('2030-01-01T00:00:00Z');
    const later = (seconds: number) => new Date(now.getTime() + seconds * 1000);
    const run = (id: string, deadline = later(600)) => ({ endpoint: 'http://worker-a:8000', id, deadline });

    it('finds the run remembered for a task, nothing for another', async () => {
      const key = task();
      expect(await registry().find(key)).toBeNull();
      await registry().remember(key, run('run-1'), now);
      expect(await registry().find(key)).toEqual(run('run-1'));
      expect(await registry().find(task())).toBeNull();
    });

    it("a task's later run replaces its earlier one, which can then no longer forget it", async () => {
      const key = task();
      await registry().remember(key, run('run-1'), now);
      await registry().remember(key, { endpoint: 'http://worker-b:8000', id: 'run-2', deadline: later(900) }, now);
      expect(await registry().find(key)).toEqual({ endpoint: 'http://worker-b:8000', id: 'run-2', deadline: later(900) });
      await registry().forget(key, 'run-1');
      expect((await registry().find(key))?.id).toBe('run-2');
      await registry().forget(key, 'run-2');
      expect(await registry().find(key)).toBeNull();
    });

    it('forgets the runs whose deadline has passed as it remembers another, and keeps the others', async () => {
      const [expired, current, deadlineNow] = [task(), task(), task()];
      await registry().remember(expired, run('old', later(-1)), later(-600));
      await registry().remember(current, run('current', later(1)), later(-600));
      await registry().remember(deadlineNow, run('just', now), later(-600));
      await registry().remember(task(), run('new'), now);
      expect(await registry().find(expired)).toBeNull();
      expect((await registry().find(current))?.id).toBe('current');
      expect((await registry().find(deadlineNow))?.id).toBe('just');
    });

    it('remembers a run whose deadline has passed when it is the one being remembered', async () => {
      const key = task();
      await registry().remember(key, run('late', later(-1)), now);
      expect((await registry().find(key))?.id).toBe('late');
    });
  });
}
