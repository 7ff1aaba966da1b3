import { Worker } from 'node:worker_threads';
import { EngineError } from '../../types';

interface Waiting<T> {
  resolve: (value: T) => void;
  reject: (error: Error) => void;
}

/** what a thread's message says about a run: its result or its error (undefined: not about a run) */
export type RunAnswer<T> = { id: number; value: T } | { id: number; error: Error } | undefined;

/**
 * The runs sent to a model's inference threads and not answered yet. The threads keep the process
 * alive only while a run is in flight. Once one fails or stops, or the model is closed, every run
 * waiting and every later one fails with the first reason. `model` names it in errors; `answer`
 * reads the threads' messages.
 */
export class RunsInFlight<T, M = unknown> {
  private readonly waiting = new Map<number, Waiting<T>>();
  private nextId = 1;
  private failure: Error | undefined;

  constructor(
    private readonly workers: readonly Worker[],
    model: string,
    answer: (message: M) => RunAnswer<T>,
  ) {
    for (const worker of workers) {
      worker.on('message', (message: M) => {
        const answered = answer(message);
        if (answered) this.settle(answered.id, answered);
      });
      worker.on('error', (error) => this.fail(new EngineError('model_unavailable', `${model}'s inference thread failed: ${error.message}`)));
      worker.on('exit', () => this.fail(new EngineError('model_unavailable', `${model}'s inference thread has stopped`)));
      // after the listeners: adding a 'message' listener refs the thread again
      worker.unref();
    }
  }

  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** a new run: `send` posts it to a thread under the id it is given */
  start(send: (id: number) => void): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      if (this.waiting.size === 1) for (const worker of this.workers) worker.ref();
      send(id);
    });
  }

  /** the answer to run `id` (none when it no longer waits: it failed meanwhile) */
  private settle(id: number, outcome: { value: T } | { error: Error }): void {
    const waiting = this.waiting.get(id);
    if (!waiting) return;
    this.waiting.delete(id);
    if (this.waiting.size === 0) for (const worker of this.workers) worker.unref();
    if ('error' in outcome) waiting.reject(outcome.error);
    else waiting.resolve(outcome.value);
  }

  fail(error: Error): void {
    this.failure ??= error;
    for (const waiting of this.waiting.values()) waiting.reject(this.failure);
    this.waiting.clear();
  }
}
