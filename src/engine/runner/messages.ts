/** The IPC protocol between the EngineProcessPool and its engine children. */
import type { MediaBinaries } from '../media/binaries';
import { EngineErrorCode, EngineProgress, EngineRequest, EngineResult } from '../types';

/** Fixed for a child's lifetime; passed as JSON in its last command-line argument. */
export interface ChildConfig {
  cacheDir: string;
  /** module exporting `loadModel(name, { cacheDir })` */
  modelModule: string;
  /** the parent's ffmpeg builds (set by the launcher) */
  binaries?: MediaBinaries;
}

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
