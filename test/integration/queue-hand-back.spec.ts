/**
 * Work handed back by a worker's shutdown (HandedBack) goes back to the queue without spending one of
 * its attempts, on both queue backends: a message with a single attempt, handed back once, still runs
 * again and completes. Any other error still spends the attempt.
 */
import { Job as QueueJob, Queue, Worker } from 'bullmq';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config/app-config';
import { bullRootOptions } from '../../src/infrastructure/queue/queue-connection';
import { handingBack } from '../../src/modules/jobs/adapters/bullmq/hand-back';
import { HandedBack } from '../../src/modules/jobs/application/handed-back';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { eventually } from '../support/test-app';

describe.each([
  ['Redis', { REDIS_URL: 'redis://127.0.0.1:6379' }],
  ['Postgres', {}],
])('a message handed back at shutdown, on the %s queue', (backend, env: Record<string, string>) => {
  let database: TestDatabase | undefined;
  let queue: Queue;
  let worker: Worker | undefined;
  const failures: string[] = [];

  beforeAll(async () => {
    if (backend === 'Postgres') database = await createTestDatabase();
    const config = loadConfig({ ...env, QUEUE_NAMESPACE: `handback_${randomBytes(4).toString('hex')}` });
    queue = new Queue('hand-back', bullRootOptions(config, database?.url ?? ''));
  });
  afterAll(async () => {
    await worker?.close();
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await database?.drop();
  });

  /** A worker whose first runs of each message end with what `failRun` gives (undefined: the run succeeds). */
  const work = (failRun: (run: number) => Error | undefined, outage = { patienceMs: 60_000, retryDelayMs: 100 }) => {
    const runs = new Map<string, number>();
    worker = new Worker(
      'hand-back',
      (message: QueueJob, token?: string) =>
        handingBack(
          message,
          token,
          async () => {
            const run = (runs.get(String(message.id)) ?? 0) + 1;
            runs.set(String(message.id), run);
            const failure = failRun(run);
            if (failure) throw failure;
            return 'done';
          },
          outage,
        ),
      { ...queue.opts, concurrency: 1 } as never,
    );
    worker.on('failed', (message) => failures.push(String(message?.id)));
    return runs;
  };
  const settled = (id: string) => eventually(async () => {
    const state = await queue.getJobState(id);
    return state === 'completed' || state === 'failed' ? state : undefined;
  }, 20_000, 50);

  it('runs again and completes with its one attempt; a failure still spends it', async () => {
    const runs = work((run) => (run > 1 ? undefined : runs.size === 1 ? new HandedBack('the worker is shutting down') : new Error('engine crashed')));
    await queue.add('chunk', {}, { jobId: 'handed-back', attempts: 1 });
    expect(await settled('handed-back')).toBe('completed');
    expect(runs.get('handed-back')).toBe(2);
    expect((await queue.getJob('handed-back'))?.attemptsMade).toBe(1);
    await queue.add('chunk', {}, { jobId: 'crashed', attempts: 1 });
    expect(await settled('crashed')).toBe('failed');
    expect(runs.get('crashed')).toBe(1);
    // the worker's 'failed' event follows the state it stored: a poll can see the state first
    expect(await eventually(async () => (failures.length ? failures : undefined), 5_000, 20)).toEqual(['crashed']);
  });
  it('a database or storage that cannot be reached sends the message back without spending its attempt, until the outage outlasts its patience', async () => {
    await worker?.close();
    const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const runs = work((run) => (run <= 3 ? refused() : undefined));
    await queue.add('chunk', {}, { jobId: 'outage', attempts: 1 });
    expect(await settled('outage')).toBe('completed');
    expect(runs.get('outage')).toBe(4);
    await worker?.close();
    const forever = work(() => refused(), { patienceMs: 300, retryDelayMs: 100 });
    await queue.add('chunk', {}, { jobId: 'outage-past-patience', attempts: 1 });
    expect(await settled('outage-past-patience')).toBe('failed');
    expect(forever.get('outage-past-patience')).toBeGreaterThan(1);
  });
});
