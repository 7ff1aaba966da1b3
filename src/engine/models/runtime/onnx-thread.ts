import { Worker } from 'node:worker_threads';
import { EngineError } from '../../types';
import { OnnxThreadData, OnnxThreadInput, OnnxThreadReply, OnnxThreadRequest } from './onnx-thread-protocol';
import { startWorkerThread, whenThreadReady } from './worker-thread';

interface Pending {
  resolve: (output: Float32Array) => void;
  reject: (error: Error) => void;
}

/**
 * A single-input, single-output model run on an inference thread of its own (onnx-thread-main.ts).
 * onnxruntime-node runs a session synchronously on the thread that calls it: ISNet's runs (0.3 s
 * on two threads) on the engine's thread stopped its event loop for as long, so the decoder's
 * pipe (a 3 MB frame at 1024x1024 through 64 KB) and the encoder's stalled, and the engine's own
 * work on the frames around a keyframe waited for the run to end. `model` names it in errors.
 */
export class OnnxThread {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failure: Error | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly model: string,
  ) {
    worker.on('message', (message: OnnxThreadReply) => this.settle(message));
    worker.on('error', (error) => this.fail(new EngineError('model_unavailable', `${model}'s inference thread failed: ${error.message}`)));
    worker.on('exit', () => this.fail(new EngineError('model_unavailable', `${model}'s inference thread has stopped`)));
    worker.unref(); // referenced only while a run is in flight
  }

  static async open(model: string, data: OnnxThreadData): Promise<OnnxThread> {
    const worker = startWorkerThread(__dirname, 'onnx-thread-main', data as unknown as Record<string, unknown>);
    try {
      await whenThreadReady(worker, model);
    } catch (error) {
      await worker.terminate();
      throw error;
    }
    return new OnnxThread(worker, model);
  }

  /** runs the model on `input`, whose data moves to the thread (the caller must not use it after) */
  run(input: OnnxThreadInput): Promise<Float32Array> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<Float32Array>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) this.worker.ref();
      this.worker.postMessage({ kind: 'run', id, input } satisfies OnnxThreadRequest, [input.data.buffer as ArrayBuffer]);
    });
  }

  async close(): Promise<void> {
    this.failure ??= new EngineError('model_unavailable', `${this.model} was closed`);
    await this.worker.terminate();
  }

  private settle(message: OnnxThreadReply): void {
    if (message.kind !== 'result' && message.kind !== 'error') return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    if (this.pending.size === 0) this.worker.unref();
    if (message.kind === 'error') pending.reject(new EngineError('model_unavailable', `${this.model} inference failed: ${message.message}`));
    else pending.resolve(message.output);
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const pending of this.pending.values()) pending.reject(this.failure);
    this.pending.clear();
  }
}
