import { randomUUID } from 'node:crypto';
import { WebhookOutbox } from '../../src/modules/webhooks/ports/webhook-outbox';
import { JobRepository } from '../../src/modules/jobs/ports/job.repository';
import { aJob } from './jobs-and-ledger.contract';

/** What every WebhookOutbox must do (Postgres: repositories.contract.spec.ts; memory: in-memory.contract.spec.ts). */
/** Jobs the outbox writes to: `add` stores a job of the owner, `webhookEventsOf` reads its webhook_events back. */
export interface OutboxJobs {
  add(owner: string): Promise<string>;
  webhookEventsOf(jobId: string): Promise<Record<string, string>>;
}

/** the jobs of `repository`, for the outbox contract */
export function outboxJobs(repository: () => JobRepository): OutboxJobs {
  return {
    add: async (owner) => {
      const job = aJob(owner);
      await repository().insert(job);
      return job.id;
    },
    webhookEventsOf: async (jobId) => ((await repository().findById(jobId))?.webhookEvents ?? {}) as Record<string, string>,
  };
}

export function describeWebhookOutboxContract(outbox: () => WebhookOutbox, newOwner: () => Promise<string>, jobs: OutboxJobs): void {
  describe('WebhookOutbox contract', () => {
    const later = () => new Date(Date.now() + 60_000);
    const add = async (apiKeyId: string, jobId = `job_${randomUUID()}`, event: 'job.started' | 'job.completed' = 'job.completed') => {
      const id = `msg_${randomUUID()}`;
      await outbox().add({ id, apiKeyId, jobId, event, url: 'https://hooks.example.com/in', body: '{}' });
      return { id, jobId };
    };

    it("a delivery sent or failed is written into its job's webhook_events with its attempt; one still to retry is not", async () => {
      const owner = await newOwner();
      const jobId = await jobs.add(owner);
      const started = await add(owner, jobId, 'job.started');
      const completed = await add(owner, jobId, 'job.completed');
      await outbox().recordAttempt(completed.id, { statusCode: 500, error: 'HTTP 500', outcome: 'retry', nextAttemptAt: later() });
      expect(await jobs.webhookEventsOf(jobId)).toEqual({});
      await outbox().recordAttempt(started.id, { statusCode: 200, error: null, outcome: 'sent', nextAttemptAt: null });
      await outbox().recordAttempt(completed.id, { statusCode: 500, error: 'HTTP 500', outcome: 'failed', nextAttemptAt: null });
      expect(await jobs.webhookEventsOf(jobId)).toEqual({ 'job.started': 'sent', 'job.completed': 'failed' });
    });

    it("goneFor: whether the URL answered 410 to an attempt of one of the job's deliveries", async () => {
      const owner = await newOwner();
      const { id, jobId } = await add(owner, undefined, 'job.started');
      expect(await outbox().goneFor(jobId, 'https://hooks.example.com/in')).toBe(false);
      await outbox().recordAttempt(id, { statusCode: 500, error: 'HTTP 500', outcome: 'retry', nextAttemptAt: later() });
      expect(await outbox().goneFor(jobId, 'https://hooks.example.com/in')).toBe(false);
      await outbox().recordAttempt(id, { statusCode: 410, error: 'HTTP 410', outcome: 'failed', nextAttemptAt: null });
      expect(await outbox().goneFor(jobId, 'https://hooks.example.com/in')).toBe(true);
      expect(await outbox().goneFor(jobId, 'https://other.example.com/in')).toBe(false);
      expect(await outbox().goneFor(`job_${randomUUID()}`, 'https://hooks.example.com/in')).toBe(false);
    });

    it("forgetKey removes every delivery of the key's jobs, pending or finished, and no other key's", async () => {
      const [owner, stranger] = [await newOwner(), await newOwner()];
      const pending = await add(owner);
      const sent = await add(owner, undefined, 'job.started');
      await outbox().recordAttempt(sent.id, { statusCode: 200, error: null, outcome: 'sent', nextAttemptAt: null });
      const strangers = await add(stranger);
      expect(await outbox().forgetKey(owner)).toBe(2);
      expect([await outbox().find(pending.id), await outbox().find(sent.id)]).toEqual([null, null]);
      expect(await outbox().find(strangers.id)).toMatchObject({ apiKeyId: stranger, status: 'pending' });
      expect(await outbox().forgetKey(owner)).toBe(0);
    });

    it('keeps one delivery per job and event: a second add keeps the first', async () => {
      const owner = await newOwner();
      const first = await add(owner);
      const again = `msg_${randomUUID()}`;
      await outbox().add({ id: again, apiKeyId: owner, jobId: first.jobId, event: 'job.completed', url: 'https://other.example.com', body: '{"x":1}' });
      expect(await outbox().find(again)).toBeNull();
      expect(await outbox().find(first.id)).toMatchObject({ status: 'pending', attempts: 0, url: 'https://hooks.example.com/in', body: '{}' });
    });

    it('a pending delivery is due; a retry moves it to its next attempt time; a finished one is no longer due nor changed', async () => {
      const owner = await newOwner();
      const { id } = await add(owner);
      expect((await outbox().due(later(), 1000)).map((delivery) => delivery.id)).toContain(id);
      const next = new Date(Date.now() + 3_600_000);
      await outbox().recordAttempt(id, { statusCode: 500, error: 'HTTP 500', outcome: 'retry', nextAttemptAt: next });
      expect(await outbox().find(id)).toMatchObject({ status: 'pending', attempts: 1 });
      expect((await outbox().due(later(), 1000)).map((delivery) => delivery.id)).not.toContain(id);
      expect((await outbox().due(new Date(next.getTime() + 1), 1000)).map((delivery) => delivery.id)).toContain(id);
      await outbox().recordAttempt(id, { statusCode: 200, error: null, outcome: 'sent', nextAttemptAt: null });
      await outbox().recordAttempt(id, { statusCode: 500, error: 'late', outcome: 'failed', nextAttemptAt: null });
      expect(await outbox().find(id)).toMatchObject({ status: 'sent', attempts: 2 });
      expect((await outbox().due(new Date(next.getTime() + 1), 1000)).map((delivery) => delivery.id)).not.toContain(id);
    });

    it('pruneFinished removes the deliveries sent or failed before its cutoff, never a pending one', async () => {
      const owner = await newOwner();
      const [sent, failed, retried, pending] = [await add(owner), await add(owner), await add(owner), await add(owner)];
      await outbox().recordAttempt(sent.id, { statusCode: 200, error: null, outcome: 'sent', nextAttemptAt: null });
      await outbox().recordAttempt(failed.id, { statusCode: 410, error: 'HTTP 410', outcome: 'failed', nextAttemptAt: null });
      await outbox().recordAttempt(retried.id, { statusCode: 500, error: 'HTTP 500', outcome: 'retry', nextAttemptAt: later() });
      const ids = [sent, failed, retried, pending].map((delivery) => delivery.id);
      const left = async () => (await Promise.all(ids.map((id) => outbox().find(id)))).filter((delivery) => delivery !== null).map((delivery) => delivery.id);
      await outbox().pruneFinished(new Date(Date.now() - 60_000));
      expect(await left()).toEqual(ids);
      expect(await outbox().pruneFinished(later())).toBeGreaterThanOrEqual(2);
      expect(await left()).toEqual([retried.id, pending.id]);
    });
  });
}
