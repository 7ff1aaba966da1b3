/** The engine's public surface: a plain library the service (and the worker) call. */
export * from './types';
export { runEngine } from './engine';
export { DEFAULT_MAX_DURATION_SECONDS } from './pipeline/plan';
export type { EngineDeps, ProgressListener } from './engine';
export { admitImage, admitVideo, probe } from './media/input-gate';
export type { AdmittedImage, AdmittedVideo } from './media/input-gate';
export type { ProbedVideo } from './media/probe';
export { DEFAULT_MEDIA_LIMITS } from './media/limits';
export type { MediaLimits } from './media/limits';
export { isSupportedVideo, detectVideoType, sniffImageType, sniffVideoType, SNIFF_BYTES, SUPPORTED_IMAGE_TYPES, SUPPORTED_VIDEO_TYPES } from './media/sniff';
export type { SupportedImageType, SupportedVideoType } from './media/sniff';
export { EngineProcessPool } from './runner/engine-process-pool';
export type { EngineProcessPoolOptions } from './runner/engine-process-pool';
export { joinSegments } from './chunks/join-segments';
export type { JoinRequest } from './chunks/join-segments';
export { segmentFormatFor } from './chunks/segment';
