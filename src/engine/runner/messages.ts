/** The IPC protocol between the EngineProcessPool and its engine children. */
import { EngineErrorCode, EngineProgress, EngineRequest, EngineResult } from '../types';

/** Fixed for a child's lifetime; passed in its environment as JSON. */
export interface ChildConfig {
  cacheDir: string;
  /** module exporting `loadModel(name, { cacheDir })` */
  modelModule: string;
}

export const CHILD_CONFIG_ENV = 'BACKDROP_ENGINE_CHILD_CONFIG';

export type ParentMessage =
  | { type: 'run'; jobId: number; request: EngineRequest; workDir: string }
  | { type: 'cancel'; jobId: number };

export interface SerializedError {
  code?: EngineErrorCode;
  message: string;
}

export type ChildMessage =
  | { type: 'ready' }
  | { type: 'progress'; jobId: number; progress: EngineProgress }
  | { type: 'result'; jobId: number; result: EngineResult }
  | { type: 'error'; jobId: number; error: SerializedError };
