import { JobFailureCode } from '../../src/common/errors/error-codes';
import { ObjectStorage } from '../../src/modules/storage/ports/object-storage';
import { WorkerFailure, WorkerGateway, WorkerOutcome, WorkerTask } from '../../src/modules/worker-gateway/ports/worker-gateway';

type Script = { kind: 'succeed'; durationSeconds: number } | { kind: 'fail'; code: JobFailureCode; message: string } | { kind: 'hold' };

/**
 * A scriptable WorkerGateway for tests: by default it "processes" by copying the input to the output
 * key (so downloads serve real bytes) and reports progress; scripts make it fail or hold a job.
 */
export class FakeWorkerGateway extends WorkerGateway {
  readonly tasks: WorkerTask[] = [];
  /** jobs whose processing was stopped through the abort signal */
  readonly canceled: string[] = [];
  /** runs an earlier attempt left going that were given up (giveUp) */
  readonly givenUp: Array<Pick<WorkerTask, 'jobId' | 'outputKey'>> = [];
  private script: Script = { kind: 'succeed', durationSeconds: 4 };
  private releaseHeld: Array<() => void> = [];

  constructor(private readonly storage: ObjectStorage) {
    super();
  }

  succeedWith(durationSeconds: number): void {
    this.script = { kind: 'succeed', durationSeconds };
  }

  failWith(code: JobFailureCode, message = 'scripted failure'): void {
    this.script = { kind: 'fail', code, message };
  }

  hold(): void {
    this.script = { kind: 'hold' };
  }

  release(): void {
    this.script = { kind: 'succeed', durationSeconds: 4 };
    this.releaseHeld.splice(0).forEach((resume) => resume());
  }

  async process(task: WorkerTask, onProgress: (percent: number) => void, signal?: AbortSignal): Promise<WorkerOutcome> {
    this.tasks.push(task);
    onProgress(10);
    if (this.script.kind === 'hold') {
      await new Promise<void>((resume) => {
        this.releaseHeld.push(resume);
        signal?.addEventListener('abort', () => resume(), { once: true });
      });
      if (signal?.aborted) {
        this.canceled.push(task.jobId);
        throw new WorkerFailure('canceled', 'processing was canceled');
      }
    }
    const script = this.script;
    if (script.kind === 'fail') throw new WorkerFailure(script.code, script.message);
    onProgress(50);
    await this.storage.withLocalFile(task.inputKey, (path) => this.storage.putFile(task.outputKey, path));
    onProgress(100);
    return { durationSeconds: script.kind === 'succeed' ? script.durationSeconds : 4, frames: 100, notes: [] };
  }

  override async giveUp(task: Pick<WorkerTask, 'jobId' | 'outputKey'>): Promise<void> {
    this.givenUp.push({ jobId: task.jobId, outputKey: task.outputKey });
  }

  async check(): Promise<string> {
    return 'ok';
  }
}
