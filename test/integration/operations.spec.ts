import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { migrate } from '../../src/composition/data-source';
import { eventually, MEDIA_DIR, startTestApp, TestApp } from '../support/test-app';

describe('operations: cancel and the transactional hand-off', () => {
  let t: TestApp;
  let db: DataSource;
  let key: string;
  let videoUrl: string;

  beforeAll(async () => {
    t = await startTestApp({ JOB_RELAY_INTERVAL_MS: '300' });
    db = await migrate(t.config.databaseUrl!);
    key = await t.createKey(100);
    videoUrl = (await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', path.join(MEDIA_DIR, 'portrait-pan.mp4'))).body.video_url;
  });
  afterAll(async () => {
    await db.destroy();
    await t.close();
  });

  const jobOf = async (id: string) => (await t.http.get(`/v1/jobs/${id}`).set('X-Api-Key', key)).body;

  it('cancels a processing job: failed with canceled, credits released, the worker told to stop', async () => {
    t.fake.hold();
    try {
      const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl });
      await eventually(async () => ((await jobOf(created.body.id)).status === 'processing' ? true : undefined));
      const canceled = await t.http.post(`/v1/jobs/${created.body.id}/cancel`).set('X-Api-Key', key).send({});
      expect(canceled.status).toBe(200);
      expect(canceled.body).toMatchObject({ status: 'failed', job: { error_code: 'canceled', billing_status: 'refunded' } });
      await eventually(async () => (t.fake.canceled.includes(created.body.id) ? true : undefined), 5000);
      const again = await t.http.post(`/v1/jobs/${created.body.id}/cancel`).set('X-Api-Key', key).send({});
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('invalid_state');
      const [{ credits }] = await db.query(`SELECT credits FROM api_keys WHERE key_hash = encode(sha256($1::bytea), 'hex')`, [key]);
      expect(Number(credits)).toBe(100);
    } finally {
      t.fake.release();
    }
  });

  it('refuses to cancel a draft, and another key cannot cancel', async () => {
    const draft = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl, auto_start: false });
    expect((await t.http.post(`/v1/jobs/${draft.body.id}/cancel`).set('X-Api-Key', key).send({})).status).toBe(409);
    expect((await t.http.post(`/v1/jobs/${draft.body.id}/cancel`).set('X-Api-Key', await t.createKey()).send({})).status).toBe(404);
  });

  it('a job committed as pending but never queued (the API died in between) is handed over by the relay', async () => {
    const draft = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl, auto_start: false });
    // What a crash between commit and enqueue leaves behind: pending, not dispatched, nothing in the queue.
    await db.query(`UPDATE jobs SET status = 'pending', started_at = now() - interval '2 seconds', dispatched_at = NULL WHERE id = $1`, [draft.body.id]);
    const done = await eventually(async () => ((await jobOf(draft.body.id)).status === 'completed' ? true : undefined), 15000);
    expect(done).toBe(true);
    const [{ dispatched_at }] = await db.query(`SELECT dispatched_at FROM jobs WHERE id = $1`, [draft.body.id]);
    expect(dispatched_at).not.toBeNull();
    expect(t.fake.tasks.filter((task) => task.jobId === draft.body.id)).toHaveLength(1);
  });

  it('exposes Prometheus metrics: queue depth per state, job duration and fps per model, HTTP latency by route', async () => {
    const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl, model: 'light' });
    await eventually(async () => ((await jobOf(created.body.id)).status === 'completed' ? true : undefined));
    const res = await t.http.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.text).toMatch(/backdrop_queue_jobs\{queue="jobs",state="waiting"\} \d+/);
    expect(res.text).toMatch(/backdrop_job_duration_seconds_count\{model="light",status="completed"\} [1-9]/);
    expect(res.text).toMatch(/backdrop_job_frames_per_second_count\{model="light"\} [1-9]/);
    expect(res.text).toMatch(/backdrop_job_processing_frames_per_second_count\{model="light"\} [1-9]/);
    expect(res.text).toMatch(/backdrop_jobs_ended_total\{model="light",status="completed",error_code=""\} [1-9]/);
    expect(res.text).toMatch(/backdrop_http_request_duration_seconds_count\{method="GET",route="\/v1\/jobs\/:id",status="200"\} [1-9]/);
    expect(res.text).not.toContain(created.body.id);
  });
});
