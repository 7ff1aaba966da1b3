import { FixedClock } from '../../../src/common/clock';
import { InMemoryApiKeyRepository } from '../../../src/modules/auth/adapters/in-memory/in-memory.api-key.repository';
import { ApiKeyRepository } from '../../../src/modules/auth/ports/api-key.repository';
import { SequentialIds } from '../../../src/common/ids';
import { InMemoryOutboundHttp } from '../../../src/common/in-memory.outbound-http';
import { InMemoryUnitOfWork } from '../../../src/common/in-memory.unit-of-work';
import { PortToken } from '../../../src/common/unit-of-work';
import { loadConfig } from '../../../src/config/app-config';
import { InMemoryCreditLedger } from '../../../src/modules/billing/adapters/in-memory/in-memory.credit-ledger';
import { CreditLedger } from '../../../src/modules/billing/ports/credit-ledger';
import { InMemoryJobDispatcher } from '../../../src/modules/jobs/adapters/in-memory/in-memory.job-dispatcher';
import { InMemoryJobEventLog } from '../../../src/modules/jobs/adapters/in-memory/in-memory.job-event-log';
import { InMemoryJobRepository } from '../../../src/modules/jobs/adapters/in-memory/in-memory.job.repository';
import { JobDispatchRelay } from '../../../src/modules/jobs/application/job-dispatch-relay';
import { JobLifecycle } from '../../../src/modules/jobs/application/job-lifecycle';
import { JobPresenter } from '../../../src/modules/jobs/application/job.presenter';
import { JobsService } from '../../../src/modules/jobs/application/jobs.service';
import { JobEventLog } from '../../../src/modules/jobs/ports/job-event-log';
import { JobRepository } from '../../../src/modules/jobs/ports/job.repository';
import { InMemoryServiceMetrics } from '../../../src/modules/metrics/adapters/in-memory.service-metrics';
import { InMemoryObjectStorage } from '../../../src/modules/storage/adapters/in-memory/in-memory.object-storage';
import { InMemoryUploadRepository } from '../../../src/modules/uploads/adapters/in-memory/in-memory.upload.repository';
import { UploadRepository } from '../../../src/modules/uploads/ports/upload.repository';
import { UploadsService } from '../../../src/modules/uploads/application/uploads.service';
import { VideoProbe } from '../../../src/modules/uploads/ports/video-probe';
import { InMemoryWebhookDeliveryQueue, InMemoryWebhookOutbox } from '../../../src/modules/webhooks/adapters/in-memory/in-memory.webhook-outbox';
import { WebhookAnnouncer } from '../../../src/modules/webhooks/application/webhook-announcer';
import { WebhookOutbox } from '../../../src/modules/webhooks/ports/webhook-outbox';

/** A probe that calls every file a 10 s video (the unit tier runs no ffprobe). */
export class TenSecondProbe extends VideoProbe {
  async probe(): Promise<{ durationSeconds: number; width: number; height: number }> {
    return { durationSeconds: 10, width: 640, height: 360 };
  }
  readonly headBytes = 1;
  refusalOfHead(): null {
    return null;
  }
  async probeImage(): Promise<{ width: number; height: number }> {
    return { width: 640, height: 360 };
  }
}

/**
 * The jobs use cases wired to in-memory adapters only (no Postgres, Redis or ffmpeg): the state a
 * test asserts on is the adapters' own (`jobs`, `ledger`, `events`, `outbox`, `dispatcher`...).
 */
export function jobsWorld(env: Record<string, string> = {}) {
  const config = loadConfig({ PUBLIC_BASE_URL: 'http://backdrop.test', ...env });
  const clock = FixedClock.at('2026-01-01T00:00:00Z');
  const ids = new SequentialIds();
  const jobs = new InMemoryJobRepository();
  const ledger = new InMemoryCreditLedger();
  const events = new InMemoryJobEventLog();
  const outbox = new InMemoryWebhookOutbox(() => clock.now(), (jobId, event, state) => jobs.recordWebhookEvent(jobId, event, state));
  const uploadRows = new InMemoryUploadRepository();
  // the keys the jobs belong to; a job of an id not among them (KEY = 'key_a') is a job of an enabled key
  const keys = new InMemoryApiKeyRepository();
  const ports: Array<[PortToken<unknown>, unknown]> = [
    [ApiKeyRepository, keys],
    [JobRepository, jobs],
    [CreditLedger, ledger],
    [JobEventLog, events],
    [WebhookOutbox, outbox],
    [UploadRepository, uploadRows],
  ];
  const unitOfWork = new InMemoryUnitOfWork(new Map(ports));
  const storage = new InMemoryObjectStorage();
  const deliveries = new InMemoryWebhookDeliveryQueue();
  const dispatcher = new InMemoryJobDispatcher();
  const metrics = new InMemoryServiceMetrics();
  const outbound = new InMemoryOutboundHttp();
  const uploads = new UploadsService(storage, uploadRows, new TenSecondProbe(), config, ids, unitOfWork, clock);
  const presenter = new JobPresenter(storage, config);
  const dispatchRelay = new JobDispatchRelay(jobs, dispatcher, clock, config);
  const lifecycle = new JobLifecycle(unitOfWork, presenter, new WebhookAnnouncer(clock, ids), deliveries, dispatchRelay, clock, metrics, keys, config);
  const service = new JobsService(jobs, lifecycle, uploads, outbound, clock, ids);
  return { config, clock, ids, keys, jobs, ledger, events, outbox, storage, deliveries, dispatcher, metrics, outbound, uploads, uploadRows, presenter, dispatchRelay, lifecycle, service };
}
