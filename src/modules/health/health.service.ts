import { Injectable, Logger, OnModuleDestroy, Optional } from '@nestjs/common';
import { RepeatedWarning } from '../../common/logging/repeated-warning';
import { ObjectStorage } from '../storage/ports/object-storage';
import { WorkerGateway } from '../worker-gateway/ports/worker-gateway';
import { DatabaseProbe } from './database-probe';
import { QueueProbe } from './queue-probe';

export type CheckName = 'api' | 'worker_configured' | 'storage_configured' | 'database' | 'queue';
export type Checks = Record<CheckName, string>;

const CHECK_TIMEOUT_MS = 3000;

export const NO_QUEUE_CONSUMER = 'no worker takes jobs from the queue: jobs wait until a process with ROLE=worker or ROLE=all runs';

/**
 * A check's answer within CHECK_TIMEOUT_MS. What a check throws goes to the log, not to the public
 * answer: a driver's message names hosts, addresses, users or paths (`connect ECONNREFUSED 10.0.3.7:5432`).
 */
async function within(check: () => Promise<string>, failures: RepeatedWarning, name: string): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${CHECK_TIMEOUT_MS} ms`), CHECK_TIMEOUT_MS);
  });
  const failed = (error: Error): string => {
    failures.warn(`health check ${name} failed: ${error.message}`);
    return 'unavailable (details in the log)';
  };
  try {
    return await Promise.race([check().catch(failed), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Each dependency answers 'ok' or says what is wrong; every check is time-boxed. From the start of a
 * shutdown `api` says so, and the process is not ready: it went on reporting ready (and a balancer
 * sent it requests) through the workers' whole grace.
 */
@Injectable()
export class HealthService implements OnModuleDestroy {
  private stopping = false;

  constructor(
    private readonly database: DatabaseProbe,
    private readonly storage: ObjectStorage,
    private readonly queue: QueueProbe,
    @Optional() private readonly gateway?: WorkerGateway,
  ) {}

  private readonly failures = new RepeatedWarning(new Logger('Health'));

  /** Nest's first shutdown step, before the workers' grace */
  onModuleDestroy(): void {
    this.stopping = true;
  }

  async checks(): Promise<Checks> {
    const [worker_configured, readiness] = await Promise.all([within(() => this.workerCheck(), this.failures, 'worker_configured'), this.readiness()]);
    return { ...readiness, worker_configured };
  }

  /** What readiness for traffic needs (`/health/ready`): the API serves without a worker. */
  async readiness(): Promise<Pick<Checks, 'api' | 'database' | 'queue' | 'storage_configured'>> {
    const [storage_configured, database, queue] = await Promise.all([within(() => this.storage.check(), this.failures, 'storage_configured'), within(() => this.database.check(), this.failures, 'database'), within(() => this.queue.check(), this.failures, 'queue')]);
    return { api: this.stopping ? 'shutting down' : 'ok', database, queue, storage_configured };
  }

  /**
   * The worker gateway's own check, then whether any process takes jobs from the queue: a
   * deployment of ROLE=api processes alone reported healthy while every job waited. A queue that
   * cannot be asked is the queue check's to report.
   */
  private async workerCheck(): Promise<string> {
    const gateway = this.gateway ? await this.gateway.check() : 'no worker gateway configured';
    if (gateway !== 'ok') return gateway;
    return (await this.queue.consumers()) === 0 ? NO_QUEUE_CONSUMER : 'ok';
  }
}
