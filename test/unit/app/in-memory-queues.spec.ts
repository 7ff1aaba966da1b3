import { HandedBack } from '../../../src/modules/jobs/application/handed-back';
import { InMemoryJobDispatcher } from '../../../src/modules/jobs/adapters/in-memory/in-memory.job-dispatcher';
import { InMemoryWebhookDeliveryQueue } from '../../../src/modules/webhooks/adapters/in-memory/in-memory.webhook-outbox';

const until = async (condition: () => boolean): Promise<void> => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
};

/** The in-memory queues of the all-in-memory app hand their messages to a consumer, as BullMQ's workers would. */
describe('in-memory queues with a consumer', () => {
  it('the job queue runs each job once, off the caller, and counts them by state', async () => {
    const queue = new InMemoryJobDispatcher();
    const ran: string[] = [];
    queue.consumeWith(async (jobId) => {
      ran.push(jobId);
      if (jobId === 'job_bad') throw new Error('the handler failed');
    });
    await queue.dispatch('job_a');
    await queue.dispatch('job_a');
    await queue.dispatch('job_bad');
    expect(ran).toEqual([]);
    expect(queue.counts()).toEqual({ waiting: 2, active: 0, completed: 0, failed: 0 });
    await queue.drain();
    expect(ran).toEqual(['job_a', 'job_bad']);
    expect(queue.counts()).toEqual({ waiting: 0, active: 0, completed: 1, failed: 1 });
  });

  it('the job queue hands a job handed back (HandedBack) over again after the wait it asks for, not counted failed; a drain hands nothing more', async () => {
    const queue = new InMemoryJobDispatcher();
    const ran: string[] = [];
    queue.consumeWith(async (jobId) => {
      ran.push(jobId);
      if (ran.length === 1) throw new HandedBack('wait your turn', 20);
    });
    await queue.dispatch('job_a');
    await until(() => ran.length === 2);
    await queue.drain();
    expect(queue.counts()).toEqual({ waiting: 0, active: 0, completed: 1, failed: 0 });

    const closing = new InMemoryJobDispatcher();
    const handedBack: string[] = [];
    closing.consumeWith(async (jobId) => {
      handedBack.push(jobId);
      throw new HandedBack('wait your turn', 20);
    });
    await closing.dispatch('job_b');
    await until(() => handedBack.length === 1);
    await closing.drain();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(handedBack).toEqual(['job_b']);
  });

  it('the webhook queue hands each attempt over once, after its delay', async () => {
    jest.useFakeTimers();
    try {
      const queue = new InMemoryWebhookDeliveryQueue();
      const delivered: string[] = [];
      queue.consumeWith(async (id) => void delivered.push(id));
      await queue.enqueue([{ id: 'msg_1', attempts: 0 }]);
      await queue.enqueue([{ id: 'msg_1', attempts: 0 }]);
      await queue.enqueue([{ id: 'msg_2', attempts: 1 }], 30_000);
      jest.advanceTimersByTime(0);
      expect(delivered).toEqual(['msg_1']);
      jest.advanceTimersByTime(29_999);
      expect(delivered).toEqual(['msg_1']);
      jest.advanceTimersByTime(1);
      expect(delivered).toEqual(['msg_1', 'msg_2']);
      await queue.enqueue([{ id: 'msg_3', attempts: 0 }], 1000);
      queue.stop();
      jest.advanceTimersByTime(5000);
      expect(delivered).toEqual(['msg_1', 'msg_2']);
    } finally {
      jest.useRealTimers();
    }
  });
});
