import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { TypeOrmRetentionStore } from '../../src/modules/retention/adapters/typeorm/typeorm.retention-store';
import { newJobId, newUploadId } from '../../src/common/ids';
import { migrate } from '../../src/composition/data-source';
import { eventually, MEDIA_DIR, startTestApp, TestApp } from '../support/test-app';
import { getQueueToken } from '@nestjs/bullmq';
import { Queue } from 'bullmq';
import { MAINTENANCE_QUEUE } from '../../src/infrastructure/queue/queue-connection';

describe('retention', () => {
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp({ RETENTION_HOURS: '1', RETENTION_INTERVAL_MS: '1000' });
    db = await migrate(t.config.databaseUrl!);
  });
  afterAll(async () => {
    await db.destroy();
    await t.close();
  });

  it("keeps the schedule's run records a hundred deep (five hundred failed): one an interval piled up for good", async () => {
    const maintenance = t.app.get<Queue>(getQueueToken(MAINTENANCE_QUEUE));
    const scheduler = await maintenance.getJobScheduler('retention');
    expect(scheduler?.template?.opts).toMatchObject({ removeOnComplete: { count: 100 }, removeOnFail: { count: 500 } });
  });

  it('deletes uploads and outputs past their age on a schedule; their URLs, and a draft of the upload started, then answer 410', async () => {
    const key = await t.createKey();
    const upload = async () => (await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', path.join(MEDIA_DIR, 'portrait-pan.mp4'))).body;
    const old = await upload();
    const fresh = await upload();
    const draft = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: old.video_url, auto_start: false });
    const job = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: old.video_url });
    const done = await eventually(async () => {
      const current = (await t.http.get(`/v1/jobs/${job.body.id}`).set('X-Api-Key', key)).body;
      return current.status === 'completed' ? current : undefined;
    });
    const outputUrl = new URL(done.output_url);
    expect((await t.http.get(outputUrl.pathname + outputUrl.search)).status).toBe(200);

    await db.query(`UPDATE uploads SET created_at = now() - interval '2 hours' WHERE id = $1`, [old.video_id]);
    await db.query(`UPDATE jobs SET completed_at = now() - interval '2 hours' WHERE id = $1`, [job.body.id]);

    // one sweep deletes the uploads, then the outputs: wait for both, not the first alone
    const status = async (url: string) => (await t.http.get(url).set('X-Api-Key', key)).status;
    await eventually(async () => ((await status(new URL(old.video_url).pathname)) === 410 && (await status(`/api/download/${job.body.id}`)) === 410 ? true : undefined), 15000);
    const gone = await t.http.get(new URL(old.video_url).pathname).set('X-Api-Key', key);
    expect(gone.body.error.code).toBe('gone');
    expect(existsSync(path.join(t.dataDir, 'storage', 'uploads', old.video_id))).toBe(false);

    const download = await t.http.get(`/api/download/${job.body.id}`).set('X-Api-Key', key);
    expect(download.status).toBe(410);
    expect((await t.http.get(outputUrl.pathname + outputUrl.search)).status).toBe(410);
    expect((await t.http.get(`/v1/jobs/${job.body.id}`).set('X-Api-Key', key)).body).toMatchObject({ status: 'completed', output_url: null });
    const reuse = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: old.video_url });
    expect(reuse.status).toBe(410);
    // a draft made before is not started on the deleted upload (it was: started, then failed input_unreachable)
    const start = await t.http.post(`/v1/jobs/${draft.body.id}/start`).set('X-Api-Key', key).send({});
    expect(start.status).toBe(410);
    expect(start.body.error.code).toBe('gone');
    expect((await t.http.get(`/v1/jobs/${draft.body.id}`).set('X-Api-Key', key)).body).toMatchObject({ status: 'created' });

    expect((await t.http.get(new URL(fresh.video_url).pathname).set('X-Api-Key', key)).status).toBe(200);
  }, 60000);

  it("sweeps the stored files no row needs on the same schedule: a body whose upload row was never written, a write cut short; keeps a job's file no row names and files of other shapes", async () => {
    const key = await t.createKey();
    const upload = (await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', path.join(MEDIA_DIR, 'portrait-pan.mp4'))).body;
    const storage = path.join(t.dataDir, 'storage');
    const twoDaysAgo = new Date(Date.now() - 48 * 3600_000);
    const planted = (key: string) => {
      const file = path.join(storage, key);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, 'left behind');
      utimesSync(file, twoDaysAgo, twoDaysAgo);
      return file;
    };
    const orphans = [planted(`uploads/${newUploadId()}`), planted(`outputs/${newJobId()}.webm.Ab12Cd34.partial`)];
    const foreign = [planted('backups/keep.txt'), planted(`chunks/${newJobId()}/0.webm`)];
    const needed = path.join(storage, 'uploads', upload.video_id);
    utimesSync(needed, twoDaysAgo, twoDaysAgo);
    await eventually(async () => (orphans.every((file) => !existsSync(file)) ? true : undefined), 15000);
    expect([needed, ...foreign].map((file) => existsSync(file))).toEqual([true, true, true]);
    expect((await t.http.get(new URL(upload.video_url).pathname).set('X-Api-Key', key)).status).toBe(200);
  }, 60000);

  it("does not claim an upload while a job's start on it is committing (the check missed the start, and the file was deleted under a job then accepted)", async () => {
    const key = await t.createKey();
    const upload = (await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', path.join(MEDIA_DIR, 'portrait-pan.mp4'))).body;
    const draft = (await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: upload.video_url, auto_start: false })).body;
    // a start as the lifecycle makes it: the upload held, the draft moved, not yet committed
    const start = new Client({ connectionString: t.config.databaseUrl });
    await start.connect();
    try {
      await start.query('BEGIN');
      await start.query('SELECT deleted_at FROM uploads WHERE id = $1 FOR SHARE', [upload.video_id]);
      await start.query(`UPDATE jobs SET status = 'pending' WHERE id = $1`, [draft.id]);
      const claim = new TypeOrmRetentionStore(db).claimUpload(upload.video_id);
      const settled = await Promise.race([claim.then(() => 'settled'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 300))]);
      expect(settled).toBe('waiting');
      await start.query('COMMIT');
      expect(await claim).toBe(false);
    } finally {
      await start.end();
    }
    expect(existsSync(path.join(t.dataDir, 'storage', 'uploads', upload.video_id))).toBe(true);
  });
});
