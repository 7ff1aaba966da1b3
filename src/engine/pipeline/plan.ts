/** Pure decisions taken from the request and the probe, before any work starts. */
import { EngineError, EngineRequest } from '../types';
import { InputPin } from '../media/input-pin';
import { ProbedVideo } from '../media/probe';
import { ENCODER_PRESETS, EncoderPreset } from './encoders';
import { CompositeBackground, SourceSpec } from './ffmpeg-args';
import { computeLayout, Layout } from './geometry';
import { hdrName } from './tone-map';

export const DEFAULT_MAX_DURATION_SECONDS = 600;

export interface JobPlan {
  source: SourceSpec;
  preset: EncoderPreset;
  background: CompositeBackground;
  layout: Layout;
  keepAudio: boolean;
  /** seconds of input that will be processed */
  processedSeconds: number;
  /** an estimate for progress; the real count comes from the decoder */
  framesExpected: number;
  notes: string[];
}

/**
 * The duration limit applies to what will be processed: a preview of a long input is allowed,
 * since only its first seconds are decoded (and billed).
 */
export function planJob(request: EngineRequest, video: ProbedVideo, image?: { pin: InputPin; type?: string; orientation?: number }): JobPlan {
  const notes: string[] = [];
  const maxSeconds = request.maxDurationSeconds ?? DEFAULT_MAX_DURATION_SECONDS;
  const preview = request.previewDuration;
  if (preview !== undefined && !(preview > 0)) throw new EngineError('input_invalid', `preview duration must be positive, got ${preview}`);
  const trimmed = preview !== undefined && preview < video.durationSeconds;
  const processedSeconds = trimmed ? preview : video.durationSeconds;
  if (processedSeconds > maxSeconds) {
    throw new EngineError('input_too_long', `the video lasts ${round(video.durationSeconds)} s, over the ${maxSeconds} s limit`);
  }

  const preset = ENCODER_PRESETS[request.outputFormat];
  let background: CompositeBackground;
  if (request.background.type === 'image') {
    if (!image) throw new Error('an image background must pass the input gate before planning');
    const mayBeTransparent = image.type !== undefined && image.type !== 'image/jpeg';
    background = { ...request.background, pin: image.pin, ...(image.orientation ? { orientation: image.orientation } : {}), ...(mayBeTransparent ? { mayBeTransparent } : {}) };
  } else {
    background = request.background;
  }
  if (!preset.hasAlpha && background.type === 'transparent') {
    background = { type: 'color', rgb: [0, 0, 0] };
    notes.push(`${request.outputFormat} has no alpha channel: composited over black`);
  }
  if (video.rotation !== 0) notes.push(`input rotated ${video.rotation} degrees: output written upright`);
  if (video.anamorphic) notes.push(`input's pixels are not square: written at its display size, ${video.width}x${video.height}`);
  if (video.interlaced) notes.push('input is interlaced: deinterlaced, a frame for each frame');
  if (video.hdr) notes.push(`input is HDR (${hdrName(video.hdr)}): tone-mapped to SDR (BT.709)`);
  if (keepsOwnAlpha(video)) notes.push(`input has an alpha channel of its own: ${background.type === 'transparent' ? 'what it leaves transparent stays transparent' : 'the background shows where it is transparent'}`);

  return {
    source: sourceSpecOf(request.inputPath, video, trimmed ? preview : undefined),
    preset,
    background,
    layout: computeLayout(video, request.composition, preset.evenDimensions),
    keepAudio: video.hasAudio && preset.audioArgs !== undefined,
    processedSeconds,
    framesExpected: Math.max(1, Math.round(processedSeconds * video.fps)),
    notes,
  };
}

/**
 * The output keeps the input's own alpha (ffmpeg-args.ts, withSourceAlpha), except from HDR: the
 * tone-mapping works in a format without alpha, and such files are not made with one.
 */
function keepsOwnAlpha(video: ProbedVideo): boolean {
  return video.hasAlpha && !video.hdr;
}

/** how every ffmpeg of the pipeline reads `inputPath` (its first `durationLimit` seconds), as the input gate probed it */
export function sourceSpecOf(inputPath: string, video: ProbedVideo, durationLimit?: number): SourceSpec {
  const { pin, videoStream, alphaDecoder, videoStart, hdr, interlaced, anamorphic, colourMatrix, fullRange, fps, width, height } = video;
  // the packets' span where measured: a header within its tolerance of it (probe.ts) cut the sound up to 1% before the last picture
  const wholePicture = video.packetSpanSeconds ?? video.durationSeconds;
  const pictureSeconds = durationLimit !== undefined ? Math.min(durationLimit, wholePicture) : wholePicture;
  return { inputPath, pin, videoStream, alphaDecoder, videoStart, hdr, interlaced, anamorphic, colourMatrix, fullRange, hasAlpha: keepsOwnAlpha(video), durationLimit, pictureSeconds, fps, size: { width, height } };
}

function round(seconds: number): number {
  return Math.round(seconds * 10) / 10;
}
