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

  /** A worker whose first run of each message ends with `firstRun`, the next ones succeed. */
  const work = (firstRun: () => Error) => {
    const runs = new Map<string, number>();
    worker = new Worker(
      'hand-back',
      (message: QueueJob, token?: string) =>
        handingBack(message, token, async () => {
          runs.set(String(message.id), (runs.get(String(message.id)) ?? 0) + 1);
          if (runs.get(String(message.id)) === 1) throw firstRun();
          return 'done';
        }),
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
    const runs = work(() => (runs.size === 1 ? new HandedBack('the worker is shutting down') : new Error('engine crashed')));
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
});
