/** Messages between RvmMatter (the engine's thread) and its inference threads (rvm-worker-main.ts). */
import type { MessagePort } from 'node:worker_threads';
import type { ThreadCloseRequest } from '../runtime/thread-close';
import type { ThreadLoaded } from '../runtime/worker-thread';

/** RVM's recurrent state inputs, zeros at the start of a video */
export const RVM_STATE_INPUTS = ['r1i', 'r2i', 'r3i', 'r4i'] as const;

/** the output holding the next value of a state input (`r1i` -> `r1o`) */
export function stateOutputOf(input: string): string {
  return input.replace(/i$/, 'o');
}

/**
 * One inference thread: the whole model, or one of its stages (rvm-model-file.ts's
 * prepareRvmStages). The whole model and the stateless stage read frames from the engine's thread;
 * each stage but the last hands tensors on through `to`, the next reads them from `from`, and the
 * last answers the engine's thread with the matte.
 */
export interface RvmWorkerData {
  modelPath: string;
  threads: number;
  /** the model's input size */
  width: number;
  height: number;
  /** from the stage before (transferred) */
  from?: MessagePort;
  /** to the stage after (transferred) */
  to?: MessagePort;
}

/** one frame of one stream; `reset` forgets the stream's state first (scene cut, new video) */
export interface RvmRunRequest {
  kind: 'run';
  id: number;
  stream: number;
  reset: boolean;
  /** packed RGB24 at the model's input size (transferred) */
  rgb: Uint8Array;
}

/** the stream's state is no longer needed */
export interface RvmEndRequest {
  kind: 'end';
  stream: number;
}

export interface CarriedTensor {
  type: 'float32' | 'uint8';
  dims: number[];
  data: Float32Array | Uint8Array;
}

/** a frame between two stages: the tensors the stages before wrote, and how long each ran */
export interface RvmCarriedRequest {
  kind: 'carried';
  id: number;
  stream: number;
  reset: boolean;
  tensors: Record<string, CarriedTensor>;
  stageMs: number[];
}

/** the thread runs `by` niceness below the process from now on (runtime/thread-priority.ts); answered by `lowered` */
export interface RvmLowerPriorityRequest {
  kind: 'lower-priority';
  by: number;
}

export type RvmWorkerRequest = RvmRunRequest | RvmEndRequest | RvmLowerPriorityRequest | ThreadCloseRequest;
export type RvmStageRequest = RvmWorkerRequest | RvmCarriedRequest;

export type RvmWorkerReply =
  | ThreadLoaded
  /** the thread has handled a `lower-priority` (lowered where the platform allows) */
  | { kind: 'lowered' }
  /** `stageMs`: how long each stage's inference took on its thread (wall ms), in order */
  | { kind: 'result'; id: number; alpha: Float32Array; alphaBytes: Uint8Array; foreground?: Float32Array; stageMs: number[] }
  | { kind: 'error'; id: number; message: string };
