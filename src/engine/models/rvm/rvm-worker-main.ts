/**
 * RVM's inference thread. onnxruntime-node runs a session synchronously on the thread that calls
 * it; on the engine's thread that blocked the event loop for the whole inference, so the ffmpeg
 * decoder and encoder starved on their pipes (64 KB of a 230-690 KB frame) until it returned.
 * Here inference runs beside the event loop, which keeps both pipes flowing. The recurrent state
 * of each stream stays on this thread: only frames in and mattes out cross.
 */
import * as ort from 'onnxruntime-node';
import { parentPort, workerData } from 'node:worker_threads';
import { toAlphaBytes } from '../image/resample';
import { openOnnxSession } from '../runtime/onnx-session';
import { RvmWorkerData, RvmWorkerReply, RvmWorkerRequest } from './rvm-worker-protocol';

const STATE_NAMES = ['r1', 'r2', 'r3', 'r4'] as const;
const port = parentPort!;
const states = new Map<number, Record<string, ort.Tensor>>();
const reply = (message: RvmWorkerReply, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

function zeroState(session: ort.InferenceSession): Record<string, ort.Tensor> {
  const feeds: Record<string, ort.Tensor> = {};
  for (const meta of session.inputMetadata) {
    if (meta.name === 'src' || !meta.isTensor) continue;
    const shape = meta.shape.map(Number);
    feeds[meta.name] = new ort.Tensor('float32', new Float32Array(shape.reduce((a, b) => a * b, 1)), shape);
  }
  return feeds;
}

async function main(): Promise<void> {
  const { modelPath, threads, width, height } = workerData as RvmWorkerData;
  let session: ort.InferenceSession;
  try {
    session = await openOnnxSession(modelPath, threads);
  } catch (error) {
    reply({ kind: 'failed', message: (error as Error).message });
    return;
  }
  const initial = zeroState(session);
  // one request at a time, in order: the state of frame t feeds frame t+1
  let queue = Promise.resolve();
  port.on('message', (request: RvmWorkerRequest) => {
    if (request.kind === 'end') {
      states.delete(request.stream);
      return;
    }
    queue = queue.then(async () => {
      try {
        const state = request.reset ? initial : (states.get(request.stream) ?? initial);
        const result = await session.run({ src: new ort.Tensor('uint8', request.rgb, [1, height, width, 3]), ...state });
        states.set(request.stream, Object.fromEntries(STATE_NAMES.map((name) => [`${name}i`, result[`${name}o`]])));
        const alpha = result.pha.data as Float32Array;
        const foreground = result.fgr.data as Float32Array;
        const alphaBytes = toAlphaBytes(alpha);
        const buffers = [alpha, alphaBytes, foreground].map((array) => array.buffer as ArrayBuffer);
        reply({ kind: 'result', id: request.id, alpha, alphaBytes, foreground }, buffers);
      } catch (error) {
        reply({ kind: 'error', id: request.id, message: (error as Error).message });
      }
    });
  });
  reply({ kind: 'ready' });
}

void main();
