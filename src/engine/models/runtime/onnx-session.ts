import * as ort from 'onnxruntime-node';
import { EngineError } from '../../types';

/**
 * Threads per inference. The machine has 2 cores that ffmpeg's decoder and encoder share with the
 * engine. Large models (ISNet, ~0.7 s a run in int8) use both; small per-frame models use one, which was
 * measured twice as fast as two while the other core is busy (5 vs 11 ms for the selfie model).
 * Idle threads do not spin, so they leave the cores to ffmpeg.
 */
export const DEFAULT_INTRA_OP_THREADS = 2;
export const SMALL_MODEL_THREADS = 1;

export async function openOnnxSession(modelPathOrBytes: string | Uint8Array, threads = DEFAULT_INTRA_OP_THREADS): Promise<ort.InferenceSession> {
  const options: ort.InferenceSession.SessionOptions = {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    extra: { session: { intra_op: { allow_spinning: '0' } } },
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
