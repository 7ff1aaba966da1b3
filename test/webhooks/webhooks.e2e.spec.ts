import { createHmac } from 'node:crypto';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { eventually, MEDIA_DIR, startTestApp, TestApp } from '../support/test-app';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A loopback receiver that answers 500 to the first `failures` attempts of each delivery, then 200. */
async function startReceiver(failures: number, mode: 'answer' | 'hang' = 'answer') {
  const received: Received[] = [];
  const attemptsById = new Map<string, number>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      if (mode === 'hang') return;
      const id = String(req.headers['webhook-id']);
      const attempt = (attemptsById.get(id) ?? 0) + 1;
      attemptsById.set(id, attempt);
      res.statusCode = attempt <= failures ? 500 : 200;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

describe('webhooks', () => {
  let t: TestApp;
  let key: string;
  let videoUrl: string;

  beforeAll(async () => {
    t = await startTestApp({ OUTBOUND_ALLOW_LIST: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE_SECONDS: '0.2,0.2,0.2', WEBHOOK_TIMEOUT_MS: '1500', WEBHOOK_SWEEP_INTERVAL_MS: '500', WEBHOOK_RECEIVER_REST_SECONDS: '0' });
    key = await t.createKey();
    videoUrl = (await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', path.join(MEDIA_DIR, 'portrait-pan.mp4'))).body.video_url;
  });
  afterAll(() => t.close());

  const jobOf = async (id: string) => (await t.http.get(`/v1/jobs/${id}`).set('X-Api-Key', key)).body;

  it('retries a failing receiver with the same delivery id, signs every attempt, and ends sent', async () => {
    const receiver = await startReceiver(2);
    try {
      const secret = (await t.http.get('/v1/webhooks/secret').set('X-Api-Key', key)).body.secret as string;
      expect(secret).toMatch(/^whsec_/);
      const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl, webhook_url: receiver.url });
      const job = await eventually(async () => {
        const current = await jobOf(created.body.id);
        return current.webhook_events['job.completed'] === 'sent' && current.webhook_events['job.started'] === 'sent' ? current : undefined;
      }, 20000);
      expect(job.webhook_events).toEqual({ 'job.started': 'sent', 'job.completed': 'sent' });

      for (const event of ['job.started', 'job.completed']) {
        const attempts = receiver.received.filter((r) => r.headers['x-webhook-event'] === event);
        expect(attempts).toHaveLength(3);
        expect(new Set(attempts.map((r) => r.headers['webhook-id'])).size).toBe(1);
        expect(new Set(attempts.map((r) => r.headers['x-webhook-delivery-id'])).size).toBe(1);
        for (const attempt of attempts) {
          const payload = new Webhook(secret).verify(attempt.body, attempt.headers as Record<string, string>) as { event: string; data: { id: string } };
          expect(payload).toMatchObject({ event, data: { id: created.body.id } });
          const expected = createHmac('sha256', secret).update(`${attempt.headers['x-webhook-timestamp']}.${attempt.body}`).digest('hex');
          expect(attempt.headers['x-webhook-signature']).toBe(`sha256=${expected}`);
        }
      }
      const completed = JSON.parse(receiver.received.find((r) => r.headers['x-webhook-event'] === 'job.completed')!.body);
      expect(completed).toMatchObject({ event: 'job.completed', data: { id: created.body.id, status: 'completed' } });
      expect(completed.data.output_url).toContain('/files/outputs/');
      expect(new Date(completed.created_at).toISOString()).toBe(completed.created_at);
    } finally {
      await receiver.close();
    }
  });

  it("announces job.failed, signed with a rotated secret and, for a day, the one it replaced", async () => {
    const receiver = await startReceiver(0);
    t.fake.failWith('input_invalid', 'not a video');
    try {
      const before = (await t.http.get('/v1/webhooks/secret').set('X-Api-Key', key)).body.secret as string;
      const rotation = await t.http.post('/v1/webhooks/secret').set('X-Api-Key', key);
      const rotated = rotation.body.secret as string;
      expect(rotated).not.toBe(before);
      const validUntil = Date.parse(rotation.body.previous_secret_valid_until);
      expect(Math.abs(validUntil - (Date.now() + 86_400_000))).toBeLessThan(60_000);
      expect((await t.http.get('/v1/webhooks/secret').set('X-Api-Key', key)).body).toEqual({ success: true, secret: rotated, previous_secret_valid_until: rotation.body.previous_secret_valid_until });
      const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl, webhook_url: receiver.url });
      await eventually(async () => ((await jobOf(created.body.id)).webhook_events['job.failed'] === 'sent' ? true : undefined), 20000);
      const failed = receiver.received.find((r) => r.headers['x-webhook-event'] === 'job.failed')!;
      expect(new Webhook(rotated).verify(failed.body, failed.headers as Record<string, string>)).toMatchObject({ data: { status: 'failed', error: 'not a video' } });
      expect(new Webhook(before).verify(failed.body, failed.headers as Record<string, string>)).toMatchObject({ data: { status: 'failed' } });
      const legacy = createHmac('sha256', rotated).update(`${failed.headers['x-webhook-timestamp']}.${failed.body}`).digest('hex');
      expect(failed.headers['x-webhook-signature']).toBe(`sha256=${legacy}`);
    } finally {
      t.fake.succeedWith(4);
      await receiver.close();
    }
  });

  it('a receiver that never answers neither slows nor fails the job, and ends failed once the schedule is spent', async () => {
    const receiver = await startReceiver(0, 'hang');
    try {
      const began = Date.now();
      const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl, webhook_url: receiver.url });
      await eventually(async () => ((await jobOf(created.body.id)).status === 'completed' ? true : undefined), 10000);
      expect(Date.now() - began).toBeLessThan(5000);
      const job = await eventually(async () => {
        const current = await jobOf(created.body.id);
        return current.webhook_events['job.completed'] === 'failed' && current.webhook_events['job.started'] === 'failed' ? current : undefined;
      }, 20000);
      expect(job).toMatchObject({ status: 'completed', webhook_events: { 'job.started': 'failed', 'job.completed': 'failed' } });
      expect(receiver.received.filter((r) => r.headers['x-webhook-event'] === 'job.completed')).toHaveLength(4);
    } finally {
      await receiver.close();
    }
  });

  it('refuses a webhook_url to a private address at create time', async () => {
    const res = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl, webhook_url: 'http://10.0.0.1/hook' });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('webhook_url');
  });
});
