/** Messages between RvmMatter (the engine's thread) and its inference threads (rvm-worker-main.ts). */
import type { MessagePort } from 'node:worker_threads';

/** RVM's recurrent state inputs, zeros at the start of a video; each `<name>` has its next value in `<name without i>o` */
export const RVM_STATE_INPUTS = ['r1i', 'r2i', 'r3i', 'r4i'] as const;

/**
 * What a thread runs: `whole`, the model; or one of RVM's two stages (rvm-model-file.ts's
 * prepareRvmStages): `stateless` runs the encoder on each frame and hands its tensors on through
 * `link` to `recurrent`, which carries the state and answers the engine's thread.
 */
export type RvmStage = 'whole' | 'stateless' | 'recurrent';

export interface RvmWorkerData {
  modelPath: string;
  threads: number;
  /** the model's input size */
  width: number;
  height: number;
  stage: RvmStage;
  /** between the two stages' threads (transferred) */
  link?: MessagePort;
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

/** a frame after the stateless stage: the tensors the recurrent stage reads (from one stage's thread to the other's) */
export interface RvmCarriedRequest {
  kind: 'carried';
  id: number;
  stream: number;
  reset: boolean;
  tensors: Record<string, CarriedTensor>;
}

export type RvmWorkerRequest = RvmRunRequest | RvmEndRequest;
export type RvmStageRequest = RvmCarriedRequest | RvmEndRequest;

export type RvmWorkerReply =
  | { kind: 'ready' }
  | { kind: 'failed'; message: string }
  | { kind: 'result'; id: number; alpha: Float32Array; alphaBytes: Uint8Array; foreground: Float32Array }
  | { kind: 'error'; id: number; message: string };
