import { MessageChannel, Transferable, Worker } from 'node:worker_threads';
import { EngineError } from '../../types';
import { DEFAULT_INTRA_OP_THREADS } from '../runtime/onnx-session';
import { RunAnswer, RunsInFlight } from '../runtime/runs-in-flight';
import { closeThread, startWorkerThread, whenThreadReady } from '../runtime/worker-thread';
import { keepRecentGeometries } from './rvm-cache';
import { prepareRvmModel, prepareRvmStages, RvmGeometry } from './rvm-model-file';
import { RvmWorkerData, RvmWorkerReply, RvmWorkerRequest } from './rvm-worker-protocol';

/**
 * How far below the engine the stateless stage's thread runs (niceness; ffmpeg runs 2 below, see
 * media/process.ts) where it is the cheaper stage (statelessStageYields). There the recurrent stage
 * is the critical path; at equal priority the scheduler shares the two cores evenly among both
 * stages, the engine's thread and ffmpeg, and the recurrent stage waits for a core it needs at once;
 * below it, the first stage runs when the second does not need the core. `human` at 640x360
 * (portrait-pan three times over, AMD EPYC Zen 5, int8, stages 29 and 48 ms of CPU, interleaved):
 * 53.9-55.6 -> 51.3-51.9 ms a frame; `original` 105-106 -> 100-102.
 */
export const STATELESS_STAGE_NICENESS = 10;

/**
 * The stateless stage yields (runs at STATELESS_STAGE_NICENESS) where one run of it takes less than
 * this share of the recurrent stage's, as measured when RVM opens: which stage is the longer depends
 * on the CPU as well as the geometry. Where the two are even it must not: `light` in int8 on the Zen
 * 5 (8.1 and 9.0 ms) went from 1.09-1.10 to 1.15-1.17 of its CPU-bound minimum at 640x360 with it.
 * `light` in fp32 on an AVX2-only EPYC (Zen 3: 22 and 36 ms of CPU) went the other way, 1.13-1.19
 * (median 1.155) -> 1.08-1.15 (median 1.10), 18.3 -> 19.4 fps (median of 8 interleaved pairs).
 * With the decoder in two stages the longer of them counts: `light` there (24, 21.5 and 26.6 ms)
 * does not yield, and yielding measured no better (1.15 against 1.13-1.14 of its CPU-bound minimum
 * in three interleaved pairs).
 */
const YIELDING_SHARE = 0.8;

/** `recurrentMs`: each recurrent stage's run */
export function statelessStageYields(statelessMs: number, ...recurrentMs: number[]): boolean {
  return statelessMs < YIELDING_SHARE * Math.max(...recurrentMs);
}

/**
 * Frames of grey run through a fresh RVM, one at a time, before it serves videos: onnxruntime's first
 * runs of a session allocate (its arena, the pages behind it), the first a quarter to a third slower
 * (640x360 on one thread, AVX2-only EPYC: 359 against 250-280 ms), and the stages' costs are
 * measured on the later ones.
 */
const WARM_UP_FRAMES = 3;

export interface RvmOutput {
  /** alpha 0..1, width x height */
  alpha: Float32Array;
  /** the same alpha as bytes 0..255 (computed on the inference thread) */
  alphaBytes: Uint8Array;
  /** foreground colour 0..1, packed RGB, width x height x 3 (RvmGeometry.foreground only) */
  foreground?: Float32Array;
  /** the first frame after a hard cut: RVM started afresh on it (RvmSession) */
  afterCut?: boolean;
}

/** one frame's output and how long each stage's inference took on its thread (wall ms), in order */
export interface TimedRvmOutput extends RvmOutput {
  stageMs: number[];
}

/**
 * Robust Video Matting at a fixed geometry, run by onnxruntime on an inference thread of its own
 * (rvm-worker-main.ts) so the engine's event loop keeps the decoder and encoder pipes moving
 * during inference; pipelined, on one thread per stage (the encoder, the recurrent decoder in one
 * stage or two), each a frame ahead of the next (RvmGeometry.stages).
 * Sessions are shared by videos: each RvmStream is one video's recurrent state, kept on the
 * inference thread.
 */
export class RvmMatter {
  private readonly runs: RunsInFlight<TimedRvmOutput, RvmWorkerReply>;
  private nextStream = 1;
  /** the streams not yet ended: while there are any, the matter is in use (rvm-matters.ts) */
  private readonly openStreams = new Set<number>();
  /** a stream dropped without close() (a session nobody closed) still frees its state on the thread */
  private readonly unclosed = new FinalizationRegistry<number>((stream) => this.end(stream));
  /** each stage's inference on one frame (wall ms, the fastest warm-up frame after the first) */
  stageMs: number[] = [];

  /** `workers[0]` takes the requests; any of them may answer */
  private constructor(
    private readonly workers: Worker[],
    readonly geometry: RvmGeometry,
  ) {
    this.runs = new RunsInFlight(workers, 'RVM', answer);
  }

  static async open(geometry: RvmGeometry, cacheDir: string, threads = DEFAULT_INTRA_OP_THREADS): Promise<RvmMatter> {
    const size = { width: geometry.width, height: geometry.height };
    let workers: Worker[];
    if (geometry.stages) {
      // one thread per stage and one onnxruntime thread each: the stages are the parallelism
      const stages = prepareRvmStages(geometry, cacheDir);
      keepRecentGeometries(cacheDir, stages);
      const channels = stages.slice(1).map(() => new MessageChannel());
      workers = stages.map((modelPath, stage) => {
        const from = channels[stage - 1]?.port2;
        const to = channels[stage]?.port1;
        return startRvmThread({ ...size, modelPath, threads: 1, from, to }, [from, to].filter((port) => port !== undefined));
      });
    } else {
      const modelPath = prepareRvmModel(geometry, cacheDir);
      keepRecentGeometries(cacheDir, [modelPath]);
      workers = [startRvmThread({ ...size, modelPath, threads })];
    }
    // every thread's load settled before any is stopped: one stopped while onnxruntime loads aborts the process
    const loads = await Promise.allSettled(workers.map((worker) => whenThreadReady(worker, 'RVM')));
    const failed = loads.find((load): load is PromiseRejectedResult => load.status === 'rejected');
    if (failed) {
      await Promise.all(workers.map((worker) => worker.terminate()));
      throw failed.reason;
    }
    const matter = new RvmMatter(workers, geometry);
    try {
      await matter.warmUp();
    } catch (error) {
      await matter.close();
      throw error;
    }
    return matter;
  }

  /** WARM_UP_FRAMES through a stream of their own; then the stateless stage yields where it is the cheaper one */
  private async warmUp(): Promise<void> {
    const stream = this.stream();
    const grey = new Uint8Array(this.width * this.height * 3).fill(128);
    const runs: number[][] = [];
    for (let frame = 0; frame < WARM_UP_FRAMES; frame++) runs.push((await stream.next(grey)).stageMs);
    stream.close();
    this.stageMs = runs[0].map((_, stage) => Math.min(...runs.slice(1).map((run) => run[stage])));
    const [stateless, ...recurrent] = this.stageMs;
    if (this.geometry.stages && statelessStageYields(stateless, ...recurrent)) await lowerPriority(this.workers[0], STATELESS_STAGE_NICENESS);
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
    this.openStreams.add(stream.id);
    this.unclosed.register(stream, stream.id, stream);
    return stream;
  }

  /** whether a video's stream is open on it */
  get inUse(): boolean {
    return this.openStreams.size > 0;
  }

  /** @internal one frame of one stream, in the order of the calls */
  run(stream: number, reset: boolean, rgb: Uint8Array): Promise<TimedRvmOutput> {
    return this.runs.start((id) => {
      const copy = new Uint8Array(rgb); // the caller keeps its frame; the copy is moved to the thread
      this.workers[0].postMessage({ kind: 'run', id, stream, reset, rgb: copy } satisfies RvmWorkerRequest, [copy.buffer]);
    });
  }

  /** @internal */
  end(stream: number, owner?: RvmStream): void {
    if (owner) this.unclosed.unregister(owner);
    if (!this.openStreams.delete(stream)) return; // ended already
    if (!this.runs.failed) this.workers[0].postMessage({ kind: 'end', stream } satisfies RvmWorkerRequest);
  }

  async close(): Promise<void> {
    this.runs.fail(new EngineError('model_unavailable', 'RVM was closed'));
    await Promise.all(this.workers.map((worker) => closeThread(worker)));
  }
}

/** what an RVM thread's message says about a run */
function answer(message: RvmWorkerReply): RunAnswer<TimedRvmOutput> {
  if (message.kind === 'error') return { id: message.id, error: new EngineError('model_unavailable', `RVM inference failed: ${message.message}`) };
  if (message.kind === 'result') return { id: message.id, value: { alpha: message.alpha, alphaBytes: message.alphaBytes, foreground: message.foreground, stageMs: message.stageMs } };
  return undefined;
}

function startRvmThread(data: RvmWorkerData, transferList: Transferable[] = []): Worker {
  return startWorkerThread(__dirname, 'rvm-worker-main', data as unknown as Record<string, unknown>, transferList);
}

/** resolves once the thread runs `by` below the engine's priority (or could not, or stopped) */
function lowerPriority(worker: Worker, by: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      worker.off('message', onMessage);
      worker.off('exit', done);
      worker.unref();
      resolve();
    };
    const onMessage = (message: RvmWorkerReply) => {
      if (message.kind === 'lowered') done();
    };
    worker.on('message', onMessage);
    worker.on('exit', done);
    worker.ref(); // the answer keeps the process alive (threads are referenced only while they work)
    worker.postMessage({ kind: 'lower-priority', by } satisfies RvmWorkerRequest);
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
  next(rgb: Uint8Array): Promise<TimedRvmOutput> {
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
