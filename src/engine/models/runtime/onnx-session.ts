import { basename } from 'node:path';
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

/**
 * onnxruntime's memory pattern (on by default) plans one block for a run's intermediate tensors;
 * its plan reuses memory less than the arena does when left to itself, and the block stays. Off,
 * at the same speed (AMD EPYC with VNNI, 2 threads, steady runs): ISNet at 1024x1024 in int8 1387 ->
 * 740 MB of RSS (620 ms a run either way), RVM at 640x360 in int8 360 -> 218 MB on one thread,
 * NanoDet 97 -> 85 MB. The arena itself stays on: without it RVM's runs took 70% longer.
 */
const MEMORY_PATTERN = false;

export async function openOnnxSession(modelPathOrBytes: string | Uint8Array, threads = DEFAULT_INTRA_OP_THREADS): Promise<ort.InferenceSession> {
  const options: ort.InferenceSession.SessionOptions = {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    enableMemPattern: MEMORY_PATTERN,
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  };
  try {
    return typeof modelPathOrBytes === 'string'
      ? await ort.InferenceSession.create(modelPathOrBytes, options)
      : await ort.InferenceSession.create(modelPathOrBytes, options);
  } catch (error) {
    const model = typeof modelPathOrBytes === 'string' ? basename(modelPathOrBytes) : 'the model';
    throw new EngineError('model_unavailable', `onnxruntime could not load ${model}: ${(error as Error).message}`);
  }
}

/** Runs a single-input, single-output model. */
export async function runSingle(session: ort.InferenceSession, input: ort.Tensor): Promise<Float32Array> {
  const output = session.outputNames[0];
  const result = await session.run({ [session.inputNames[0]]: input }, [output]);
  return result[output].data as Float32Array;
}
