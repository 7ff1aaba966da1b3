/** Messages between RvmMatter (the engine's thread) and its inference thread (rvm-worker-main.ts). */

export interface RvmWorkerData {
  modelPath: string;
  threads: number;
  /** the model's input size */
  width: number;
  height: number;
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

export type RvmWorkerRequest = RvmRunRequest | RvmEndRequest;

export type RvmWorkerReply =
  | { kind: 'ready' }
  | { kind: 'failed'; message: string }
  | { kind: 'result'; id: number; alpha: Float32Array; alphaBytes: Uint8Array; foreground: Float32Array }
  | { kind: 'error'; id: number; message: string };
