import { FlowProducer, Queue } from 'bullmq';
import { randomBytes } from 'node:crypto';
import { createServer, Server, Socket } from 'node:net';
import { loadConfig } from '../../src/config/app-config';
import { QUEUE_HANDOFF_TIMEOUT_MS } from '../../src/common/with-timeout';
import { bullRootOptions, JOBS_QUEUE, WEBHOOKS_QUEUE } from '../../src/infrastructure/queue/queue-connection';
import { BullMqJobDispatcher } from '../../src/modules/jobs/adapters/bullmq/bullmq.job-dispatcher';
import { InMemoryJobDispatcher } from '../../src/modules/jobs/adapters/in-memory/in-memory.job-dispatcher';
import { JobDispatcher } from '../../src/modules/jobs/ports/job-dispatcher';
import { BullMqChunkDispatcher, chunkMessageId, joinMessageId } from '../../src/modules/jobs/adapters/bullmq/bullmq.chunk-dispatcher';
import { InMemoryChunkDispatcher } from '../../src/modules/jobs/adapters/in-memory/in-memory.chunk-dispatcher';
import { ChunkDispatcher, ChunkTask, JoinTask } from '../../src/modules/jobs/ports/chunk-dispatcher';
import { BullMqWebhookDeliveryQueue } from '../../src/modules/webhooks/adapters/bullmq/bullmq.webhook-delivery-queue';
import { InMemoryWebhookDeliveryQueue } from '../../src/modules/webhooks/adapters/in-memory/in-memory.webhook-outbox';
import { WebhookDeliveryQueue } from '../../src/modules/webhooks/ports/webhook-announcements';
import { createTestDatabase, TestDatabase } from '../support/test-database';

/** What a queue holds, however it holds it: the message ids, and which of them wait for a delay. */
interface Queued {
  id: string;
  delayed: boolean;
}

/** A long job's flow as a queue holds it: the chunks a worker may take now, and whether the join waits on them. */
interface QueuedFlow {
  chunks: number[];
  joinWaits: boolean;
}

interface Harness {
  jobs: JobDispatcher;
  webhooks: WebhookDeliveryQueue;
  chunks: ChunkDispatcher;
  queuedFlow(jobId: string): Promise<QueuedFlow>;
  queuedJobs(): Promise<Queued[]>;
  /** the queue loses the job's message, as a Redis restarted without its data does */
  loseJob(jobId: string): Promise<void>;
  /** whether this queue can lose messages apart from the database */
  losesMessages: boolean;
  queuedDeliveries(): Promise<Queued[]>;
  close(): Promise<void>;
}

async function bullMq(env: Record<string, string>, database?: TestDatabase): Promise<Harness> {
  const config = loadConfig({ ...env, QUEUE_NAMESPACE: `contract_${randomBytes(4).toString('hex')}` });
  const options = bullRootOptions(config, database?.url ?? '');
  const jobsQueue = new Queue(JOBS_QUEUE, options);
  const webhooksQueue = new Queue(WEBHOOKS_QUEUE, options);
  const flows = new FlowProducer(options);
  const contents = async (queue: Queue): Promise<Queued[]> => {
    const jobs = await queue.getJobs(['waiting', 'delayed', 'prioritized']);
    return Promise.all(jobs.map(async (job) => ({ id: String(job.id), delayed: (await job.getState()) === 'delayed' })));
  };
  return {
    jobs: new BullMqJobDispatcher(jobsQueue as never, config),
    losesMessages: Boolean(env.REDIS_URL),
    webhooks: new BullMqWebhookDeliveryQueue(webhooksQueue as never),
    chunks: new BullMqChunkDispatcher(flows as never, config),
    queuedFlow: async (jobId) => {
      const waiting = (await jobsQueue.getJobs(['waiting', 'prioritized'])).map((job) => String(job.id));
      const chunks = [...Array(waiting.length).keys()].filter((index) => waiting.includes(chunkMessageId(jobId, index)));
      const join = await jobsQueue.getJob(joinMessageId(jobId));
      return { chunks, joinWaits: (await join?.getState()) === 'waiting-children' };
    },
    queuedJobs: () => contents(jobsQueue),
    loseJob: async (jobId) => {
      await (await jobsQueue.getJob(jobId))?.remove();
    },
    queuedDeliveries: () => contents(webhooksQueue),
    close: async () => {
      await jobsQueue.obliterate({ force: true }).catch(() => undefined);
      await webhooksQueue.obliterate({ force: true }).catch(() => undefined);
      await jobsQueue.close();
      await webhooksQueue.close();
      await flows.close();
      await database?.drop();
    },
  };
}

function inMemory(): Harness {
  const jobs = new InMemoryJobDispatcher();
  const webhooks = new InMemoryWebhookDeliveryQueue();
  const chunks = new InMemoryChunkDispatcher();
  return {
    jobs,
    webhooks,
    chunks,
    queuedFlow: async (jobId) => {
      const flow = chunks.flows.get(jobId);
      return { chunks: (flow?.chunks ?? []).map((chunk) => chunk.index), joinWaits: flow !== undefined };
    },
    queuedJobs: async () => jobs.dispatched.map((id) => ({ id, delayed: false })),
    loseJob: async (jobId) => jobs.lose(jobId),
    losesMessages: true,
    queuedDeliveries: async () => webhooks.queued().map((delivery) => ({ id: `${delivery.id}-a${delivery.attempts}`, delayed: delivery.delayMs > 0 })),
    close: async () => undefined,
  };
}

const ids = (queued: Queued[]): string[] => queued.map((entry) => entry.id).sort();

describe.each([
  ['BullMQ on Redis', () => bullMq({ REDIS_URL: 'redis://127.0.0.1:6379' })],
  ['BullMQ on Postgres', async () => bullMq({}, await createTestDatabase())],
  ['in memory', async () => inMemory()],
])('queue contract: %s', (_name, start) => {
  let h: Harness;
  beforeAll(async () => {
    h = await start();
  }, 60000);
  afterAll(() => h?.close());

  describe('JobDispatcher', () => {
    it('queues a job under its id; dispatching it again queues nothing more', async () => {
      await h.jobs.dispatch('job_contract_a');
      await h.jobs.dispatch('job_contract_a');
      await h.jobs.dispatch('job_contract_b');
      expect(ids(await h.queuedJobs())).toEqual(['job_contract_a', 'job_contract_b']);
    });

    it('requeueLost leaves the jobs the queue holds, and queues again those it lost', async () => {
      await h.jobs.dispatch('job_contract_kept');
      await h.jobs.dispatch('job_contract_lost');
      await h.loseJob('job_contract_lost');
      expect(ids(await h.queuedJobs())).not.toContain('job_contract_lost');
      expect(await h.jobs.requeueLost(['job_contract_kept', 'job_contract_lost'])).toEqual(['job_contract_lost']);
      expect(ids(await h.queuedJobs())).toEqual(expect.arrayContaining(['job_contract_kept', 'job_contract_lost']));
      expect(await h.jobs.requeueLost(['job_contract_kept', 'job_contract_lost'])).toEqual([]);
    });

    it('says whether it can lose messages: a Redis queue can, one kept in the database cannot', () => {
      expect(h.jobs.losesMessages).toBe(h.losesMessages);
    });
  });

  describe('ChunkDispatcher', () => {
    const flowOf = (jobId: string, count: number): [JoinTask, ChunkTask[]] => {
      const chunkKeys = Array.from({ length: count }, (_, index) => `chunks/${jobId}/${index}.webm`);
      const chunks = chunkKeys.map((chunkKey, index) => ({ jobId, index, inputKey: `inputs/${jobId}`, backgroundImageKey: null, chunkKey, segment: { startSeconds: index * 15, endSeconds: (index + 1) * 15, prerollSeconds: index === 0 ? 0 : 2 }, share: 100 / count, chunksInFlow: count }));
      return [{ jobId, inputKey: `inputs/${jobId}`, backgroundImageKey: null, chunkKeys }, chunks];
    };

    it("queues a long job's chunks for any worker with its join waiting on them; dispatching it again queues nothing more", async () => {
      const jobId = `job_flow_${randomBytes(4).toString('hex')}`;
      await h.chunks.dispatch(...flowOf(jobId, 3));
      await h.chunks.dispatch(...flowOf(jobId, 3));
      expect(await h.queuedFlow(jobId)).toEqual({ chunks: [0, 1, 2], joinWaits: true });
      expect(await h.queuedFlow('job_flow_none')).toEqual({ chunks: [], joinWaits: false });
    });
  });

  describe('WebhookDeliveryQueue', () => {
    it('queues each attempt of a delivery once, whoever enqueues it (the relay and the sweeper)', async () => {
      await h.webhooks.enqueue([{ id: 'whd_1', attempts: 0 }, { id: 'whd_2', attempts: 0 }]);
      await h.webhooks.enqueue([{ id: 'whd_1', attempts: 0 }]);
      await h.webhooks.enqueue([{ id: 'whd_1', attempts: 1 }], 60_000);
      const queued = await h.queuedDeliveries();
      expect(ids(queued)).toEqual(['whd_1-a0', 'whd_1-a1', 'whd_2-a0']);
      expect(queued.filter((entry) => entry.delayed).map((entry) => entry.id)).toEqual(['whd_1-a1']);
    });
  });
});

describe('BullMqWebhookDeliveryQueue on a Redis that does not answer', () => {
  let silent: Server;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    // takes connections and never replies: commands wait, as they do on a Redis that hangs
    silent = createServer((socket) => void sockets.add(socket.on('error', () => undefined)));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });

  it('gives up at the first delivery the queue does not take within its timeout, and leaves the rest to the sweeper untried', async () => {
    const { port } = silent.address() as { port: number };
    const config = loadConfig({ REDIS_URL: `redis://127.0.0.1:${port}`, QUEUE_NAMESPACE: `contract_${randomBytes(4).toString('hex')}` });
    const queue = new Queue(WEBHOOKS_QUEUE, bullRootOptions(config, ''));
    queue.on('error', () => undefined);
    const add = jest.spyOn(queue, 'add');
    try {
      const started = Date.now();
      await new BullMqWebhookDeliveryQueue(queue as never).enqueue([
        { id: 'whd_1', attempts: 0 },
        { id: 'whd_2', attempts: 0 },
        { id: 'whd_3', attempts: 0 },
      ]);
      expect(add).toHaveBeenCalledTimes(1);
      // one timeout (QUEUE_HANDOFF_TIMEOUT_MS), not one for each delivery
      expect(Date.now() - started).toBeLessThan(2 * QUEUE_HANDOFF_TIMEOUT_MS);
    } finally {
      // the queue's client waits for a reply that never comes until its connection is gone
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
      await queue.close();
    }
  }, 30000);
});
