import * as ort from 'onnxruntime-node';
import { EngineError } from '../../types';

/**
 * Threads per inference. The machine has 2 cores that ffmpeg's decoder and encoder share with the
 * engine; the models run one inference at a time, so both cores may work on it.
 */
export const DEFAULT_INTRA_OP_THREADS = 2;

export async function openOnnxSession(modelPathOrBytes: string | Uint8Array, threads = DEFAULT_INTRA_OP_THREADS): Promise<ort.InferenceSession> {
  const options: ort.InferenceSession.SessionOptions = {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  };
  try {
    return typeof modelPathOrBytes === 'string'
      ? await ort.InferenceSession.create(modelPathOrBytes, options)
      : await ort.InferenceSession.create(modelPathOrBytes, options);
  } catch (error) {
    throw new EngineError('model_unavailable', `onnxruntime could not load the model: ${(error as Error).message}`);
  }
}

/** Runs a single-input, single-output model. */
export async function runSingle(session: ort.InferenceSession, input: ort.Tensor): Promise<Float32Array> {
  const output = session.outputNames[0];
  const result = await session.run({ [session.inputNames[0]]: input }, [output]);
  return result[output].data as Float32Array;
}
