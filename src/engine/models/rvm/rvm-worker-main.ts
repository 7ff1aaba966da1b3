/**
 * RVM's inference threads. onnxruntime-node runs a session synchronously on the thread that calls
 * it; on the engine's thread that blocked the event loop for the whole inference, so the ffmpeg
 * decoder and encoder starved on their pipes (64 KB of a 230-690 KB frame) until it returned.
 * Here inference runs beside the event loop, which keeps both pipes flowing. The recurrent state
 * of each stream stays on the thread that runs the state's part: only frames in and mattes out
 * cross to the engine.
 *
 * Split in two stages (rvm-worker-protocol.ts), the stateless thread runs the encoder on frame t+1
 * while the recurrent thread runs the decoder on frame t, and hands each frame's tensors on in
 * order. An `end` goes through the same way, so it never overtakes its stream's last frames.
 */
import * as ort from 'onnxruntime-node';
import { MessagePort, parentPort, workerData } from 'node:worker_threads';
import { toAlphaBytes } from '../image/resample';
import { openOnnxSession } from '../runtime/onnx-session';
import { CarriedTensor, RVM_STATE_INPUTS, RvmStageRequest, RvmWorkerData, RvmWorkerReply, RvmWorkerRequest } from './rvm-worker-protocol';

const port = parentPort!;
const reply = (message: RvmWorkerReply, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

type StateFeeds = Record<string, ort.Tensor>;

function zeroState(session: ort.InferenceSession): StateFeeds {
  const feeds: StateFeeds = {};
  for (const meta of session.inputMetadata) {
    if (!meta.isTensor || !(RVM_STATE_INPUTS as readonly string[]).includes(meta.name)) continue;
    const shape = meta.shape.map(Number);
    feeds[meta.name] = new ort.Tensor('float32', new Float32Array(shape.reduce((a, b) => a * b, 1)), shape);
  }
  return feeds;
}

/** requests handled one at a time, in the order they came: the state of frame t feeds frame t+1 */
function inOrder<T>(handle: (request: T) => Promise<void>): (request: T) => void {
  let queue = Promise.resolve();
  return (request) => {
    queue = queue.then(() => handle(request));
  };
}

/** the whole model or its recurrent stage: frames (or the stateless stage's tensors) in, mattes out to the engine */
function serveRecurrent(session: ort.InferenceSession, source: MessagePort, { width, height }: RvmWorkerData): void {
  const states = new Map<number, StateFeeds>();
  const initial = zeroState(session);
  const run = inOrder(async (request: RvmWorkerRequest | RvmStageRequest) => {
    if (request.kind === 'end') {
      states.delete(request.stream);
      return;
    }
    try {
      const state = request.reset ? initial : (states.get(request.stream) ?? initial);
      const inputs = request.kind === 'run' ? { src: new ort.Tensor('uint8', request.rgb, [1, height, width, 3]) } : tensorsIn(request.tensors);
      const result = await session.run({ ...inputs, ...state });
      states.set(request.stream, Object.fromEntries(RVM_STATE_INPUTS.map((name) => [name, result[name.replace(/i$/, 'o')]])));
      const alpha = result.pha.data as Float32Array;
      const foreground = result.fgr.data as Float32Array;
      const alphaBytes = toAlphaBytes(alpha);
      const buffers = [alpha, alphaBytes, foreground].map((array) => array.buffer as ArrayBuffer);
      reply({ kind: 'result', id: request.id, alpha, alphaBytes, foreground }, buffers);
    } catch (error) {
      reply({ kind: 'error', id: request.id, message: (error as Error).message });
    }
  });
  source.on('message', run);
}

/** the encoder stage: each frame's tensors on to the recurrent stage's thread, in order */
function serveStateless(session: ort.InferenceSession, link: MessagePort, { width, height }: RvmWorkerData): void {
  const run = inOrder(async (request: RvmWorkerRequest) => {
    if (request.kind === 'end') {
      link.postMessage(request);
      return;
    }
    try {
      const result = await session.run({ src: new ort.Tensor('uint8', request.rgb, [1, height, width, 3]) });
      const tensors = tensorsOut(result);
      const buffers = new Set(Object.values(tensors).map((tensor) => tensor.data.buffer as ArrayBuffer));
      link.postMessage({ kind: 'carried', id: request.id, stream: request.stream, reset: request.reset, tensors } satisfies RvmStageRequest, [...buffers]);
    } catch (error) {
      reply({ kind: 'error', id: request.id, message: (error as Error).message });
    }
  });
  port.on('message', run);
}

function tensorsOut(result: ort.InferenceSession.OnnxValueMapType): Record<string, CarriedTensor> {
  return Object.fromEntries(
    Object.entries(result).map(([name, tensor]) => [name, { type: tensor.type as CarriedTensor['type'], dims: [...tensor.dims], data: tensor.data as Float32Array | Uint8Array }]),
  );
}

function tensorsIn(tensors: Record<string, CarriedTensor>): Record<string, ort.Tensor> {
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
  if (data.stage === 'stateless') serveStateless(session, data.link!, data);
  else serveRecurrent(session, data.stage === 'recurrent' ? data.link! : port, data);
  reply({ kind: 'ready' });
}

void main();
