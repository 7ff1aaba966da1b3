/** The engine's public surface: a plain library the service (and the worker) call. */
export * from './types';
export { runEngine } from './engine';
export { DEFAULT_MAX_DURATION_SECONDS } from './pipeline/plan';
export type { EngineDeps, ProgressListener } from './engine';
export { probe } from './media/probe';
export type { ProbedVideo } from './media/probe';
export { isSupportedVideo, detectVideoType, sniffVideoType, SNIFF_BYTES, SUPPORTED_VIDEO_TYPES } from './media/sniff';
export type { SupportedVideoType } from './media/sniff';
export { EngineProcessPool } from './runner/engine-process-pool';
export type { EngineProcessPoolOptions } from './runner/engine-process-pool';
