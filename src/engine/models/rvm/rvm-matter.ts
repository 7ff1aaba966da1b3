import { MessageChannel, Transferable, Worker } from 'node:worker_threads';
import { EngineError } from '../../types';
import { DEFAULT_INTRA_OP_THREADS } from '../runtime/onnx-session';
import { startWorkerThread } from '../runtime/worker-thread';
import { prepareRvmModel, prepareRvmStages, RvmGeometry } from './rvm-model-file';
import { RvmWorkerData, RvmWorkerReply, RvmWorkerRequest } from './rvm-worker-protocol';

/**
 * How far below the engine the stateless stage's thread runs (niceness; ffmpeg runs 2 below, see
 * media/process.ts) where the decoder works at the model input's full size (ratio 1, `human`'s
 * profile: `human`, `original`, `pro`). There the recurrent stage, which holds the decoder, is the
 * critical path: at 640x360 it takes 48 ms of CPU a frame against the stateless stage's 29, which
 * is a frame ahead with time to spare. At equal priority the scheduler shares the two cores evenly
 * among both stages, the engine's thread and ffmpeg, and the recurrent stage waits for a core it
 * needs at once; below it, the first stage runs when the second does not need the core. `human` at
 * 640x360 (portrait-pan three times over, AMD EPYC Zen 5, interleaved): 53.9-55.6 -> 51.3-51.9 ms a
 * frame (+5 and +19 alike); `original` 105-106 -> 100-102. At `light`'s ratio (0.67) the two stages
 * are even (8.1 and 9.0 ms) and the same made `light` slower (bench:matting, wall / CPU-bound
 * minimum at 640x360 1.09-1.10 -> 1.15-1.17, at 1280x720 1.08 -> 1.11-1.12): both stages keep the
 * engine's priority there.
 */
export const STATELESS_STAGE_NICENESS = 10;

export interface RvmOutput {
  /** alpha 0..1, width x height */
  alpha: Float32Array;
  /** the same alpha as bytes 0..255 (computed on the inference thread) */
  alphaBytes: Uint8Array;
  /** foreground colour 0..1, packed RGB, width x height x 3 */
  foreground: Float32Array;
}

interface Pending {
  resolve: (output: RvmOutput) => void;
  reject: (error: Error) => void;
}

/**
 * Robust Video Matting at a fixed geometry, run by onnxruntime on an inference thread of its own
 * (rvm-worker-main.ts) so the engine's event loop keeps the decoder and encoder pipes moving
 * during inference; pipelined, on one thread per stage (the encoder, the recurrent decoder), a
 * frame apart (RvmGeometry.pipelined).
 * Sessions are shared by videos: each RvmStream is one video's recurrent state, kept on the
 * inference thread.
 */
export class RvmMatter {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private nextStream = 1;
  private failure: Error | undefined;
  /** a stream dropped without close() (a session nobody closed) still frees its state on the thread */
  private readonly unclosed = new FinalizationRegistry<number>((stream) => this.end(stream));

  /** `workers[0]` takes the requests; any of them may answer */
  private constructor(
    private readonly workers: Worker[],
    readonly geometry: RvmGeometry,
  ) {
    for (const worker of workers) {
      worker.on('message', (message: RvmWorkerReply) => this.settle(message));
      worker.on('error', (error) => this.fail(new EngineError('model_unavailable', `RVM's inference thread failed: ${error.message}`)));
      worker.on('exit', () => this.fail(new EngineError('model_unavailable', "RVM's inference thread has stopped")));
      worker.unref(); // referenced only while frames are in flight (see run)
    }
  }

  static async open(geometry: RvmGeometry, cacheDir: string, threads = DEFAULT_INTRA_OP_THREADS): Promise<RvmMatter> {
    const size = { width: geometry.width, height: geometry.height };
    let workers: Worker[];
    if (geometry.pipelined) {
      // one thread per stage and one onnxruntime thread each: the two stages are the parallelism
      const [stateless, recurrent] = prepareRvmStages(geometry, cacheDir);
      const { port1, port2 } = new MessageChannel();
      workers = [
        startRvmThread({ ...size, modelPath: stateless, threads: 1, to: port1, niceness: geometry.ratio >= 1 ? STATELESS_STAGE_NICENESS : undefined }, [port1]),
        startRvmThread({ ...size, modelPath: recurrent, threads: 1, from: port2 }, [port2]),
      ];
    } else {
      workers = [startRvmThread({ ...size, modelPath: prepareRvmModel(geometry, cacheDir), threads })];
    }
    try {
      await Promise.all(workers.map(ready));
    } catch (error) {
      await Promise.all(workers.map((worker) => worker.terminate()));
      throw error;
    }
    return new RvmMatter(workers, geometry);
  }

  get width(): number {
    return this.geometry.width;
  }

  get height(): number {
    return this.geometry.height;
  }

  /** a fresh recurrent state for one video */
  stream(): RvmStream {
    const stream = new RvmStream(this, this.nextStream++);
    this.unclosed.register(stream, stream.id, stream);
    return stream;
  }

  /** @internal one frame of one stream, in the order of the calls */
  run(stream: number, reset: boolean, rgb: Uint8Array): Promise<RvmOutput> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    const copy = new Uint8Array(rgb); // the caller keeps its frame; the copy is moved to the thread
    const request: RvmWorkerRequest = { kind: 'run', id, stream, reset, rgb: copy };
    return new Promise<RvmOutput>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) for (const worker of this.workers) worker.ref();
      this.workers[0].postMessage(request, [copy.buffer]);
    });
  }

  /** @internal */
  end(stream: number, owner?: RvmStream): void {
    if (owner) this.unclosed.unregister(owner);
    if (!this.failure) this.workers[0].postMessage({ kind: 'end', stream } satisfies RvmWorkerRequest);
  }

  async close(): Promise<void> {
    this.failure ??= new EngineError('model_unavailable', 'RVM was closed');
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }

  private settle(message: RvmWorkerReply): void {
    if (message.kind !== 'result' && message.kind !== 'error') return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    if (this.pending.size === 0) for (const worker of this.workers) worker.unref();
    if (message.kind === 'error') pending.reject(new EngineError('model_unavailable', `RVM inference failed: ${message.message}`));
    else pending.resolve({ alpha: message.alpha, alphaBytes: message.alphaBytes, foreground: message.foreground });
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const pending of this.pending.values()) pending.reject(this.failure);
    this.pending.clear();
  }
}

function startRvmThread(data: RvmWorkerData, transferList: Transferable[] = []): Worker {
  return startWorkerThread(__dirname, 'rvm-worker-main', data as unknown as Record<string, unknown>, transferList);
}

/** resolves when the thread has loaded its model */
function ready(worker: Worker): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onMessage = (message: RvmWorkerReply) => {
      worker.off('error', onError);
      if (message.kind === 'ready') resolve();
      else reject(new EngineError('model_unavailable', `onnxruntime could not load RVM: ${message.kind === 'failed' ? message.message : message.kind}`));
    };
    const onError = (error: Error) => reject(new EngineError('model_unavailable', `RVM's inference thread failed to start: ${error.message}`));
    worker.once('message', onMessage);
    worker.once('error', onError);
  });
}

/** RVM over one video: frames in order, the recurrent state carried from each to the next. */
export class RvmStream {
  private resetNext = true;

  constructor(
    private readonly matter: RvmMatter,
    readonly id: number,
  ) {}

  /** forget the past frames (after a scene cut) */
  reset(): void {
    this.resetNext = true;
  }

  /** `rgb`: packed RGB24 of exactly the geometry's width x height */
  next(rgb: Uint8Array): Promise<RvmOutput> {
    const { width, height } = this.matter.geometry;
    if (rgb.length !== width * height * 3) return Promise.reject(new RangeError(`RVM input must be ${width}x${height} RGB24`));
    const reset = this.resetNext;
    this.resetNext = false;
    return this.matter.run(this.id, reset, rgb);
  }

  /** the state is no longer needed */
  close(): void {
    this.matter.end(this.id, this);
  }
}
