/** Messages between the engine and an inference thread of one single-input, single-output model (onnx-thread.ts). */
import type { ThreadCloseRequest } from './thread-close';
import type { ThreadLoaded } from './worker-thread';

export interface OnnxThreadData {
  modelPath: string;
  /** onnxruntime's intra-op threads for the session */
  threads: number;
}

export interface OnnxThreadInput {
  type: 'uint8' | 'float32';
  data: Uint8Array | Float32Array;
  dims: number[];
}

export type OnnxThreadRequest = { kind: 'run'; id: number; input: OnnxThreadInput } | ThreadCloseRequest;

export type OnnxThreadReply =
  | ThreadLoaded
  | { kind: 'result'; id: number; output: Float32Array }
  | { kind: 'error'; id: number; message: string };
