import { Worker } from 'node:worker_threads';
import { EngineError } from '../../types';
import { OnnxThreadData, OnnxThreadInput, OnnxThreadReply, OnnxThreadRequest } from './onnx-thread-protocol';
import { RunsInFlight } from './runs-in-flight';
import { closeThread, startWorkerThread, whenThreadReady } from './worker-thread';

/**
 * A single-input, single-output model run on an inference thread of its own (onnx-thread-main.ts).
 * onnxruntime-node runs a session synchronously on the thread that calls it: ISNet's runs (0.3 s
 * on two threads) on the engine's thread stopped its event loop for as long, so the decoder's
 * pipe (a 3 MB frame at 1024x1024 through 64 KB) and the encoder's stalled, and the engine's own
 * work on the frames around a keyframe waited for the run to end. `model` names it in errors.
 */
export class OnnxThread {
  private readonly runs: RunsInFlight<Float32Array, OnnxThreadReply>;

  private constructor(
    private readonly worker: Worker,
    private readonly model: string,
  ) {
    this.runs = new RunsInFlight<Float32Array, OnnxThreadReply>([worker], model, (message) => {
      if (message.kind === 'result') return { id: message.id, value: message.output };
      if (message.kind === 'error') return { id: message.id, error: new EngineError('model_unavailable', `${model} inference failed: ${message.message}`) };
      return undefined;
    });
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
    return this.runs.start((id) => this.worker.postMessage({ kind: 'run', id, input } satisfies OnnxThreadRequest, [input.data.buffer as ArrayBuffer]));
  }

  async close(): Promise<void> {
    this.runs.fail(new EngineError('model_unavailable', `${this.model} was closed`));
    await closeThread(this.worker);
  }
}
