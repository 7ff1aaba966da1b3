import { WorkerFailure, WorkerGateway, WorkerOutcome } from '../ports/worker-gateway';

/** WORKER_GATEWAY=none: this deployment processes nothing; jobs that reach a worker fail, and health says why. */
export class NoWorkerGateway extends WorkerGateway {
  async process(): Promise<WorkerOutcome> {
    throw new WorkerFailure('worker_failed', 'No worker is configured to process jobs');
  }

  async check(): Promise<string> {
    return 'no worker gateway configured (WORKER_GATEWAY=none)';
  }
}
