/**
 * RVM's inference threads. onnxruntime-node runs a session synchronously on the thread that calls
 * it; on the engine's thread that blocked the event loop for the whole inference, so the ffmpeg
 * decoder and encoder starved on their pipes (64 KB of a 230-690 KB frame) until it returned.
 * Here inference runs beside the event loop, which keeps both pipes flowing. The recurrent state
 * of each stream stays on the thread whose model reads it: only frames in and mattes out cross
 * to the engine.
 *
 * Pipelined (rvm-worker-protocol.ts), the stateless stage's thread runs the encoder on frame t+1
 * while the recurrent stage's thread runs the decoder on frame t (or each of the decoder's two
 * stages its own frame); each hands its tensors on to the next, in order. An `end` goes through the
 * same way, so it never overtakes its stream's frames.
 */
import * as ort from 'onnxruntime-node';
import { MessagePort, parentPort, workerData } from 'node:worker_threads';
import { toAlphaBytes } from '../image/resample';
import { openOnnxSession } from '../runtime/onnx-session';
import { exitWhenDone, ThreadCloseRequest } from '../runtime/thread-close';
import { lowerThreadPriority } from '../runtime/thread-priority';
import { CarriedTensor, RVM_STATE_INPUTS, RvmStageRequest, RvmWorkerData, RvmWorkerReply, stateOutputOf } from './rvm-worker-protocol';

const port = parentPort!;
const reply = (message: RvmWorkerReply, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

type Feeds = Record<string, ort.Tensor>;
/** what the thread's queue runs: all but the close, which ends the thread after them */
type QueuedRequest = Exclude<RvmStageRequest, ThreadCloseRequest>;

/** zeros for the state inputs this model reads (none for a stateless stage) */
function zeroState(session: ort.InferenceSession): Feeds {
  const feeds: Feeds = {};
  for (const meta of session.inputMetadata) {
    if (!meta.isTensor || !(RVM_STATE_INPUTS as readonly string[]).includes(meta.name)) continue;
    const shape = meta.shape.map(Number);
    feeds[meta.name] = new ort.Tensor('float32', new Float32Array(shape.reduce((a, b) => a * b, 1)), shape);
  }
  return feeds;
}

/** requests handled one at a time, in the order they came: the state of frame t feeds frame t+1; `queued` is the last one's */
function inOrder<T>(handle: (request: T) => Promise<void>): { take: (request: T) => void; queued: () => Promise<void> } {
  let queue = Promise.resolve();
  return {
    take: (request) => {
      queue = queue.then(() => handle(request));
    },
    queued: () => queue,
  };
}

function serve(session: ort.InferenceSession, { width, height, from, to }: RvmWorkerData): void {
  const states = new Map<number, Feeds>();
  const initial = zeroState(session);
  const stateInputs = Object.keys(initial);
  const stateOutputs = stateInputs.map(stateOutputOf);
  const run = inOrder(async (request: QueuedRequest) => {
    if (request.kind === 'lower-priority') {
      lowerThreadPriority(request.by);
      reply({ kind: 'lowered' });
      return;
    }
    if (request.kind === 'end') {
      states.delete(request.stream);
      to?.postMessage(request);
      return;
    }
    try {
      const received = request.kind === 'run' ? { src: new ort.Tensor('uint8', request.rgb, [1, height, width, 3]) } : tensorsIn(request.tensors);
      const state = request.reset ? initial : (states.get(request.stream) ?? initial);
      const available: Feeds = { ...received, ...state };
      const started = performance.now();
      const result = await session.run(Object.fromEntries(session.inputNames.map((name) => [name, available[name]])));
      const stageMs = [...(request.kind === 'carried' ? request.stageMs : []), performance.now() - started];
      if (stateInputs.length) states.set(request.stream, Object.fromEntries(stateInputs.map((name, index) => [name, result[stateOutputs[index]]])));
      // a stage between two others hands on what it received too: the stages after it pick what they read by name
      if (to) handOn(to, request, { ...(request.kind === 'carried' ? request.tensors : {}), ...tensorsOut(result, stateOutputs) }, stageMs);
      else answer(request.id, result, stageMs);
    } catch (error) {
      reply({ kind: 'error', id: request.id, message: (error as Error).message });
    }
  });
  (from ?? port).on('message', (request: RvmStageRequest) => (request.kind === 'close' ? void exitWhenDone(run.queued(), session) : run.take(request)));
  // a later stage reads frames from the stage before, and only the close from the engine's thread
  if (from) port.on('message', (request: RvmStageRequest) => request.kind === 'close' && void exitWhenDone(run.queued(), session));
}

function handOn(to: MessagePort, request: { id: number; stream: number; reset: boolean }, tensors: Record<string, CarriedTensor>, stageMs: number[]): void {
  const buffers = new Set(Object.values(tensors).map((tensor) => tensor.data.buffer as ArrayBuffer));
  to.postMessage({ kind: 'carried', id: request.id, stream: request.stream, reset: request.reset, tensors, stageMs } satisfies RvmStageRequest, [...buffers]);
}

function answer(id: number, result: ort.InferenceSession.OnnxValueMapType, stageMs: number[]): void {
  const alpha = result.pha.data as Float32Array;
  const foreground = result.fgr?.data as Float32Array | undefined; // only in a model with `fgr` (RvmGeometry.foreground)
  const alphaBytes = toAlphaBytes(alpha);
  const buffers = [alpha, alphaBytes, ...(foreground ? [foreground] : [])].map((array) => array.buffer as ArrayBuffer);
  reply({ kind: 'result', id, alpha, alphaBytes, foreground, stageMs }, buffers);
}

/** the results but the state outputs, which stay on this thread */
function tensorsOut(result: ort.InferenceSession.OnnxValueMapType, stateOutputs: string[]): Record<string, CarriedTensor> {
  return Object.fromEntries(
    Object.entries(result)
      .filter(([name]) => !stateOutputs.includes(name))
      .map(([name, tensor]) => [name, { type: tensor.type as CarriedTensor['type'], dims: [...tensor.dims], data: tensor.data as Float32Array | Uint8Array }]),
  );
}

function tensorsIn(tensors: Record<string, CarriedTensor>): Feeds {
  return Object.fromEntries(Object.entries(tensors).map(([name, { type, data, dims }]) => [name, new ort.Tensor(type, data, dims)]));
}

async function main(): Promise<void> {
  const data = workerData as RvmWorkerData;
  let session: ort.InferenceSession;
  try {
    session = await openOnnxSession(data.modelPath, data.threads);
  } catch (error) {
    reply({ kind: 'failed', message: (error as Error).message });
    return;
  }
  serve(session, data);
  reply({ kind: 'ready' });
}

void main();
