import { InMemoryOutboundHttp } from '../../../src/common/in-memory.outbound-http';
import { OutboundHttp } from '../../../src/common/outbound-http';
import { InMemoryJobRepository } from '../../../src/modules/jobs/adapters/in-memory/in-memory.job.repository';
import { JobRepository } from '../../../src/modules/jobs/ports/job.repository';
import { startInMemoryApp } from '../../support/in-memory-app';
import { startTestApp, swap } from '../../support/test-app';

const VIDEO = 'https://videos.example.com/clip.mp4';

describe('swapping a port used inside transactions', () => {
  it('the in-memory app reads and writes the swapped adapter, in its transactions too (they wrote the one it was built with)', async () => {
    const jobs = new InMemoryJobRepository();
    const t = await startInMemoryApp({}, { adapters: [swap(JobRepository, jobs), swap(OutboundHttp, new InMemoryOutboundHttp().serve(VIDEO, Buffer.from('a video')))] });
    try {
      const key = await t.createKey();
      const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: VIDEO, auto_start: false });
      expect(created.status).toBe(200);
      expect(await jobs.findById(created.body.id)).toMatchObject({ status: 'created' });
      expect((await t.http.get(`/v1/jobs/${created.body.id}`).set('X-Api-Key', key)).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('the Postgres app refuses one swapped without the UnitOfWork, before it starts (reads went to the swap, writes to Postgres)', async () => {
    await expect(startTestApp({}, { adapters: [swap(JobRepository, new InMemoryJobRepository())] })).rejects.toThrow(
      'JobRepository is used inside transactions: swap UnitOfWork too',
    );
  });
});
