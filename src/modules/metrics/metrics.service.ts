import { statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { Queue } from 'bullmq';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { JOBS_QUEUE, WEBHOOKS_QUEUE } from '../../infrastructure/queue/queue-connection';
import { EndedJob, ServiceMetrics } from './ports/service-metrics';
import { withTimeout } from '../../common/with-timeout';
import { APP_CONFIG, AppConfig } from '../../config/app-config';

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized', 'waiting-children'] as const;

/**
 * How long a scrape waits for each queue's depth. Redis connections retry a command for as long as
 * Redis is away, so a scrape during a Redis outage answered only once it was back: the process's
 * metrics were missing exactly during the incident.
 */
const QUEUE_DEPTH_TIMEOUT_MS = 1000;

/** Prometheus metrics of this process; every replica and worker exposes its own at /metrics. */
@Injectable()
export class MetricsService extends ServiceMetrics {
  readonly registry = new Registry();
  readonly httpDuration = new Histogram({
    name: 'backdrop_http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly jobDuration = new Histogram({
    name: 'backdrop_job_duration_seconds',
    help: 'Time from the start of a job (its wait in the queue included) to its end, by model and outcome',
    labelNames: ['model', 'status'],
    buckets: [1, 2, 5, 10, 30, 60, 120, 300, 600, 1800],
    registers: [this.registry],
  });
  readonly jobsEnded = new Counter({
    name: 'backdrop_jobs_ended_total',
    help: 'Jobs ended, by model, outcome and error code (empty when completed; canceled is the client\'s cancel)',
    labelNames: ['model', 'status', 'error_code'],
    registers: [this.registry],
  });
  readonly jobFps = new Histogram({
    name: 'backdrop_job_frames_per_second',
    help: 'Frames of a completed job per second from its start (its wait in the queue included), by model',
    labelNames: ['model'],
    buckets: [0.5, 1, 2, 5, 10, 20, 40, 80, 160],
    registers: [this.registry],
  });
  readonly processingFps = new Histogram({
    name: 'backdrop_job_processing_frames_per_second',
    help: "Frames of a completed job per second of its worker's time on it (fetch, engine, store; no wait in the queue), by model; jobs done in chunks are left out",
    labelNames: ['model'],
    buckets: [0.5, 1, 2, 5, 10, 20, 40, 80, 160],
    registers: [this.registry],
  });
  readonly webhookDeliveries = new Counter({
    name: 'backdrop_webhook_attempts_total',
    help: 'Webhook delivery attempts by event and result (sent, retry, failed)',
    labelNames: ['event', 'result'],
    registers: [this.registry],
  });
  readonly webhookFailures = new Counter({
    name: 'backdrop_webhook_failures_total',
    help: 'Webhook deliveries that ended failed after the whole schedule',
    labelNames: ['event'],
    registers: [this.registry],
  });

  constructor(
    @InjectQueue(JOBS_QUEUE) jobsQueue: Queue,
    @InjectQueue(WEBHOOKS_QUEUE) webhooksQueue: Queue,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super();
    collectDefaultMetrics({ register: this.registry, prefix: 'backdrop_' });
    // DATA_DIR (local storage, the embedded Postgres, the model cache) and the scratch space of jobs:
    // a full disk made jobs fail or complete truncated while /health said all was well
    const places = { data: config.dataDir, scratch: tmpdir() };
    new Gauge({
      name: 'backdrop_disk_free_bytes',
      help: 'Free space for this process on the disk of DATA_DIR (data) and of its scratch directory (scratch)',
      labelNames: ['place'],
      registers: [this.registry],
      async collect() {
        for (const [place, dir] of Object.entries(places)) {
          const disk = await diskOf(dir);
          if (disk) this.set({ place }, disk.bavail * disk.bsize);
          else this.remove({ place });
        }
      },
    });
    new Gauge({
      name: 'backdrop_queue_jobs',
      help: 'Queue depth by queue and state',
      labelNames: ['queue', 'state'],
      registers: [this.registry],
      async collect() {
        await Promise.all(
          [jobsQueue, webhooksQueue].map(async (queue) => {
            const counts = await withTimeout(queue.getJobCounts(...QUEUE_STATES), QUEUE_DEPTH_TIMEOUT_MS, 'the queue').catch(() => null);
            // a queue that does not answer has no depth to show (not zero: it may be full)
            for (const state of QUEUE_STATES) {
              if (counts) this.set({ queue: queue.name, state }, counts[state] ?? 0);
              else this.remove({ queue: queue.name, state });
            }
          }),
        );
      },
    });
  }

  observeJob({ model, status, errorCode, seconds, frames, processingSeconds }: EndedJob): void {
    this.jobDuration.observe({ model, status }, seconds);
    this.jobsEnded.inc({ model, status, error_code: errorCode ?? '' });
    if (status === 'completed' && frames && seconds > 0) this.jobFps.observe({ model }, frames / seconds);
    if (status === 'completed' && frames && processingSeconds) this.processingFps.observe({ model }, frames / processingSeconds);
  }

  countWebhookAttempt(event: string, result: 'sent' | 'retry' | 'failed'): void {
    this.webhookDeliveries.inc({ event, result });
    if (result === 'failed') this.webhookFailures.inc({ event });
  }
}

/** the disk a directory is (or will be) on: that of its nearest ancestor that exists */
async function diskOf(dir: string): Promise<{ bavail: number; bsize: number } | null> {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const disk = await statfs(at).catch(() => null);
    if (disk || at === path.dirname(at)) return disk;
  }
}
