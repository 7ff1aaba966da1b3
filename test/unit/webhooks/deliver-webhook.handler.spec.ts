import { Logger } from '@nestjs/common';
import { FixedClock } from '../../../src/common/clock';
import { InMemoryOutboundHttp } from '../../../src/common/in-memory.outbound-http';
import { loadConfig } from '../../../src/config/app-config';
import { InMemoryApiKeyRepository } from '../../../src/modules/auth/adapters/in-memory/in-memory.api-key.repository';
import { InMemoryServiceMetrics } from '../../../src/modules/metrics/adapters/in-memory.service-metrics';
import { InMemoryWebhookDeliveryQueue, InMemoryWebhookOutbox } from '../../../src/modules/webhooks/adapters/in-memory/in-memory.webhook-outbox';
import { DeliverWebhookHandler } from '../../../src/modules/webhooks/application/deliver-webhook.handler';
import { standardSignature } from '../../../src/modules/webhooks/domain/webhook-signing';

/** The deliverer on in-memory adapters: one attempt per call, signed, retried on the schedule, ended by 410 or the schedule's end. */
async function deliverer(schedule = '5,30', env: Record<string, string> = {}) {
  const clock = FixedClock.at('2026-01-01T00:00:00Z');
  const keys = new InMemoryApiKeyRepository();
  const key = await keys.create({ clientId: 'c', note: null, keyHash: 'h'.repeat(64), fingerprint: 'f'.repeat(12), webhookSecret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=' });
  const outbox = new InMemoryWebhookOutbox(() => clock.now());
  const http = new InMemoryOutboundHttp();
  const queue = new InMemoryWebhookDeliveryQueue();
  const metrics = new InMemoryServiceMetrics();
  const handler = new DeliverWebhookHandler(outbox, keys, http, queue, clock, metrics, loadConfig({ WEBHOOK_RETRY_SCHEDULE_SECONDS: schedule, ...env }));
  await outbox.add({ id: 'msg_1', apiKeyId: key.id, jobId: 'job_1', event: 'job.completed', url: 'https://hooks.example.com/in', body: '{"event":"job.completed"}' });
  return { clock, keys, key, outbox, http, queue, metrics, handler };
}

describe('DeliverWebhookHandler', () => {
  it('a 2xx answer marks the delivery sent; the POST carries a Standard Webhooks signature of the body', async () => {
    const { outbox, http, queue, metrics, handler, clock } = await deliverer();
    await handler.handle('msg_1');
    expect((await outbox.find('msg_1'))?.status).toBe('sent');
    expect(queue.enqueued).toEqual([]);
    expect(metrics.webhookAttempts).toEqual([{ event: 'job.completed', result: 'sent' }]);
    const [post] = http.posts;
    const seconds = Math.floor(clock.now().getTime() / 1000);
    expect(post.headers['webhook-signature']).toContain(standardSignature('whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=', 'msg_1', seconds, post.body));
  });

  it("signs with the replaced secret too while it is valid, then with the key's own alone", async () => {
    const { keys, key, http, handler, clock } = await deliverer();
    await keys.rotateWebhookSecret(key.id, 'whsec_bmV3LXNlY3JldC1uZXctc2VjcmV0', { now: clock.now(), previousValidUntil: new Date(clock.now().getTime() + 60_000) });
    const signatures = () => {
      const post = http.posts.at(-1)!;
      const seconds = Math.floor(clock.now().getTime() / 1000);
      return { header: post.headers['webhook-signature'], current: standardSignature('whsec_bmV3LXNlY3JldC1uZXctc2VjcmV0', 'msg_1', seconds, post.body), previous: standardSignature('whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=', 'msg_1', seconds, post.body) };
    };
    http.postStatus = 500;
    await handler.handle('msg_1');
    const during = signatures();
    expect(during.header).toBe(`${during.current} ${during.previous}`);

    clock.advance(60_000);
    http.postStatus = 200;
    await handler.handle('msg_1');
    const after = signatures();
    expect(after.header).toBe(after.current);
  });

  it('a 500 schedules the next attempt on the queue within the jittered first delay', async () => {
    const { outbox, http, queue, handler } = await deliverer();
    http.postStatus = 500;
    await handler.handle('msg_1');
    expect(await outbox.find('msg_1')).toMatchObject({ status: 'pending', attempts: 1 });
    expect(queue.enqueued).toHaveLength(1);
    expect(queue.enqueued[0]).toMatchObject({ id: 'msg_1', attempts: 1 });
    expect(queue.enqueued[0].delayMs).toBeGreaterThanOrEqual(4000);
    expect(queue.enqueued[0].delayMs).toBeLessThanOrEqual(6000);
  });

  it('gives up once the schedule is spent, and at once on 410 Gone', async () => {
    const spent = await deliverer('5');
    spent.http.postStatus = 503;
    await spent.handler.handle('msg_1');
    await spent.handler.handle('msg_1');
    expect((await spent.outbox.find('msg_1'))?.status).toBe('failed');
    expect(spent.metrics.webhookAttempts.map((attempt) => attempt.result)).toEqual(['retry', 'failed']);

    const gone = await deliverer();
    gone.http.postStatus = 410;
    await gone.handler.handle('msg_1');
    expect((await gone.outbox.find('msg_1'))?.status).toBe('failed');
    expect(gone.queue.enqueued).toEqual([]);
  });

  it('logs each failed attempt with the delivery, the receiver\'s origin (a token may sit in the path or the query) and the reason, the last one as a warning (the one line there was gave neither where nor why)', async () => {
    const spent = await deliverer('5');
    await spent.outbox.add({ id: 'msg_2', apiKeyId: spent.key.id, jobId: 'job_2', event: 'job.failed', url: 'https://hooks.example.com/services/T000/B000/receiver-secret?token=receiver-secret', body: '{}' });
    const info = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      spent.http.postStatus = 503;
      await spent.handler.handle('msg_2');
      await spent.handler.handle('msg_2');
      expect(info.mock.calls.map(([line]) => line)).toEqual([expect.stringMatching(/^webhook job\.failed of job_2 \(delivery msg_2\) to https:\/\/hooks\.example\.com: attempt 1 failed \(HTTP 503\), next in \d+ s$/)]);
      expect(warn.mock.calls.map(([line]) => line)).toEqual(['webhook job.failed of job_2 (delivery msg_2) to https://hooks.example.com: attempt 2 failed (HTTP 503), the last one']);
    } finally {
      info.mockRestore();
      warn.mockRestore();
    }
  });

  it("after a 410 Gone, the job's later events are not sent to that URL (failed, saying why); another URL still is", async () => {
    const { outbox, http, handler } = await deliverer();
    http.postStatus = 410;
    await handler.handle('msg_1');
    const apiKeyId = (await outbox.find('msg_1'))!.apiKeyId;
    await outbox.add({ id: 'msg_2', apiKeyId, jobId: 'job_1', event: 'job.failed', url: 'https://hooks.example.com/in', body: '{}' });
    await outbox.add({ id: 'msg_3', apiKeyId, jobId: 'job_2', event: 'job.failed', url: 'https://hooks.example.com/in', body: '{}' });
    http.postStatus = 200;
    await handler.handle('msg_2');
    await handler.handle('msg_3');
    expect(http.posts).toHaveLength(2); // msg_1's 410, and msg_3 (another job)
    expect(await outbox.find('msg_2')).toMatchObject({ status: 'failed' });
    expect(outbox.attempts.find((attempt) => attempt.id === 'msg_2')?.error).toMatch(/410 Gone/);
    expect(await outbox.find('msg_3')).toMatchObject({ status: 'sent' });
  });

  it('a delivery already sent is not sent again; the sweep queues only due pending ones', async () => {
    const { http, queue, handler, clock, outbox, key } = await deliverer();
    await handler.handle('msg_1');
    await handler.handle('msg_1');
    expect(http.posts).toHaveLength(1);
    const delivery = (id: string) => ({ id, apiKeyId: key.id, jobId: `job_of_${id}`, event: 'job.completed' as const, url: 'https://hooks.example.com/in', body: '{}' });
    // msg_2 is due and was never queued (a crash between its commit and its enqueue); msg_3 failed once and waits 5 s for its retry
    await outbox.add(delivery('msg_2'));
    await outbox.add(delivery('msg_3'));
    http.postStatus = 500;
    await handler.handle('msg_3');
    queue.enqueued.length = 0;
    expect(await handler.sweep()).toBe(1);
    expect(queue.enqueued.map(({ id, attempts }) => ({ id, attempts }))).toEqual([{ id: 'msg_2', attempts: 0 }]);
    clock.advance(60_000);
    queue.enqueued.length = 0;
    expect(await handler.sweep()).toBe(2);
    expect(queue.enqueued.map(({ id }) => id).sort()).toEqual(['msg_2', 'msg_3']);
  });

  it('a receiver that left 3 deliveries in a row unanswered rests 60 s: its deliveries are not sent meanwhile (the attempt counts; the next waits for the rest to end), other receivers are; after the rest one is tried again', async () => {
    const { http, queue, handler, clock, outbox, key } = await deliverer('5,30,120,600');
    const delivery = (id: string, url = 'https://hooks.example.com/in') => ({ id, apiKeyId: key.id, jobId: `job_of_${id}`, event: 'job.completed' as const, url, body: '{}' });
    for (const id of ['msg_2', 'msg_3', 'msg_4']) await outbox.add(delivery(id));
    await outbox.add(delivery('msg_other', 'https://other.example.com/in'));
    http.postFailure = 'no answer from the server within 10000 ms';
    for (const id of ['msg_1', 'msg_2', 'msg_3']) await handler.handle(id);
    expect(http.posts).toHaveLength(3);

    queue.enqueued.length = 0;
    await handler.handle('msg_4');
    expect(http.posts).toHaveLength(3);
    expect(await outbox.find('msg_4')).toMatchObject({ status: 'pending', attempts: 1 });
    expect(outbox.attempts.find((attempt) => attempt.id === 'msg_4')?.error).toBe('not sent: https://hooks.example.com left its last 3 deliveries unanswered; it is tried again after 2026-01-01T00:01:00.000Z');
    expect(queue.enqueued[0].delayMs).toBeGreaterThanOrEqual(60_000);
    await handler.handle('msg_other');
    expect(http.posts.map((post) => post.url)).toEqual([...Array(3).fill('https://hooks.example.com/in'), 'https://other.example.com/in']);

    // after the rest one delivery tries the receiver; the others wait for its outcome, and no answer rests it again at once
    clock.advance(60_000);
    for (const id of ['msg_5', 'msg_6']) await outbox.add(delivery(id));
    await Promise.all([handler.handle('msg_4'), handler.handle('msg_5')]);
    expect(http.posts).toHaveLength(5);
    await handler.handle('msg_6');
    expect(http.posts).toHaveLength(5);
    expect(outbox.attempts.find((attempt) => attempt.id === 'msg_6')?.error).toMatch(/^not sent: .* tried again after 2026-01-01T00:02:00\.000Z$/);

    clock.advance(60_000);
    http.postFailure = null;
    await Promise.all([handler.handle('msg_5'), handler.handle('msg_6')]);
    expect(http.posts).toHaveLength(6);
    // answered: the receiver rests no more
    for (const id of ['msg_5', 'msg_6']) await handler.handle(id);
    expect([(await outbox.find('msg_5'))?.status, (await outbox.find('msg_6'))?.status]).toEqual(['sent', 'sent']);
  });

  it('with WEBHOOK_RECEIVER_REST_SECONDS 0 no receiver rests: every delivery is sent', async () => {
    const { http, handler, outbox, key } = await deliverer('5,30', { WEBHOOK_RECEIVER_REST_SECONDS: '0' });
    http.postFailure = 'no answer from the server within 10000 ms';
    for (const id of ['msg_2', 'msg_3', 'msg_4']) await outbox.add({ id, apiKeyId: key.id, jobId: `job_of_${id}`, event: 'job.completed', url: 'https://hooks.example.com/in', body: '{}' });
    for (const id of ['msg_1', 'msg_2', 'msg_3', 'msg_4']) await handler.handle(id);
    expect(http.posts).toHaveLength(4);
  });

  it("a delivery held back by a rest is never failed on it: its last attempt is a real try", async () => {
    const { http, handler, clock, outbox, key } = await deliverer('5');
    http.postFailure = 'no answer from the server within 10000 ms';
    for (const id of ['msg_2', 'msg_3', 'msg_4']) await outbox.add({ id, apiKeyId: key.id, jobId: `job_of_${id}`, event: 'job.completed', url: 'https://hooks.example.com/in', body: '{}' });
    for (const id of ['msg_1', 'msg_2', 'msg_3']) await handler.handle(id);
    await handler.handle('msg_4');
    await handler.handle('msg_4');
    expect(await outbox.find('msg_4')).toMatchObject({ status: 'pending', attempts: 2 });
    clock.advance(60_000);
    await handler.handle('msg_4');
    expect(await outbox.find('msg_4')).toMatchObject({ status: 'failed', attempts: 3 });
    expect(http.posts.at(-1)?.url).toBe('https://hooks.example.com/in');
    expect(http.posts).toHaveLength(4);
  });
});
