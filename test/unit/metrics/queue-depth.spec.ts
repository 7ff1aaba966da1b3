import { Queue } from 'bullmq';
import { MetricsService } from '../../../src/modules/metrics/metrics.service';
import { loadConfig } from '../../../src/config/app-config';

/** a queue whose Redis is away: its commands wait for it to come back */
const unanswering = (name: string) => ({ name, getJobCounts: () => new Promise<never>(() => undefined) }) as unknown as Queue;
const answering = (name: string) => ({ name, getJobCounts: async () => ({ waiting: 3, active: 1 }) }) as unknown as Queue;

describe('the queue depth in /metrics', () => {
  it('answers within about a second while a queue does not, showing no depth for it rather than zero', async () => {
    const metrics = new MetricsService(answering('jobs'), unanswering('webhooks'), loadConfig({}));
    const started = Date.now();
    const text = await metrics.registry.metrics();
    expect(Date.now() - started).toBeLessThan(3000);
    expect(text).toContain('backdrop_queue_jobs{queue="jobs",state="waiting"} 3');
    expect(text).not.toContain('queue="webhooks"');
    // the disks' free space beside it (a full disk failed jobs while /health said all was well)
    expect(text).toMatch(/backdrop_disk_free_bytes\{place="data"\} \d+/);
    expect(text).toMatch(/backdrop_disk_free_bytes\{place="scratch"\} [1-9]\d*/);
  });
});
