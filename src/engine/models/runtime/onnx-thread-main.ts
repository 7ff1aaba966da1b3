/**
 * The inference thread of one single-input, single-output model (onnx-thread.ts): requests are run
 * one at a time, in the order they came.
 */
import * as ort from 'onnxruntime-node';
import { parentPort, workerData } from 'node:worker_threads';
import { openOnnxSession, runSingle } from './onnx-session';
import { exitWhenDone } from './thread-close';
import { OnnxThreadData, OnnxThreadReply, OnnxThreadRequest } from './onnx-thread-protocol';

const port = parentPort!;
const reply = (message: OnnxThreadReply, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

async function main(): Promise<void> {
  const { modelPath, threads } = workerData as OnnxThreadData;
  let session: ort.InferenceSession;
  try {
    session = await openOnnxSession(modelPath, threads);
  } catch (error) {
    reply({ kind: 'failed', message: (error as Error).message });
    return;
  }
  let queue = Promise.resolve();
  port.on('message', (request: OnnxThreadRequest) => {
    if (request.kind === 'close') {
      void exitWhenDone(queue, session);
      return;
    }
    const { id, input } = request;
    queue = queue.then(async () => {
      try {
        const output = await runSingle(session, new ort.Tensor(input.type, input.data, input.dims));
        reply({ kind: 'result', id, output }, [output.buffer as ArrayBuffer]);
      } catch (error) {
        reply({ kind: 'error', id, message: (error as Error).message });
      }
    });
  });
  reply({ kind: 'ready' });
}

void main();
