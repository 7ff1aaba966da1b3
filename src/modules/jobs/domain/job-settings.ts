import { MAX_FOREGROUND_SIDE } from '../../../engine/pipeline/geometry';
import { DomainError } from '../../../common/errors/domain-error';
import { parseColour, parseRgbTriple } from '../../../contract/colour';
import { ALPHA_FORMATS, Anchor, Background, BgType, Composition, DraftSettings, JobSettings, Model, OutputFormat, PendingBackground, Rgb } from '../../../contract/job-settings';

// The contract's names, re-exported so the domain's callers keep one import (defined once, in src/contract).
export { ALPHA_FORMATS, ANCHORS, BG_TYPES, CANVAS_SIDE, MODELS, OUTPUT_EXTENSIONS, OUTPUT_FORMATS, PREVIEW_SECONDS } from '../../../contract/job-settings';
export type { Anchor, Background, BgType, Composition, DraftSettings, JobSettings, Model, OutputFormat, PendingBackground, Rgb } from '../../../contract/job-settings';

/** What the client asked for, as sent (after DTO type checks). Drafts keep it so start can override fields. */
export interface JobRequest {
  output_format?: OutputFormat;
  model?: Model;
  bg_type?: BgType;
  bg_color?: unknown;
  bg_image_url?: string;
  background?: { type: 'transparent' | 'color' | 'image'; color?: unknown; image_url?: string };
  composition?: {
    canvas?: { width: number; height: number };
    foreground?: { anchor?: Anchor; scale?: number; offset?: { x?: number; y?: number } };
  };
  preview_duration?: number;
  text_prompt?: string;
}

const NAMED_COLORS: Record<'green' | 'white' | 'black' | 'blue', Rgb> = {
  green: [9, 162, 70], // #09A246, the original service's [0.035, 0.635, 0.274]
  white: [255, 255, 255],
  black: [0, 0, 0],
  blue: [0, 71, 187], // #0047BB
};

/** Three numbers: all within [0,1] (normalized RGB, the original service's convention) or 0..255 integers. */
export function parseRgbArray(value: unknown, field: string): Rgb {
  const parsed = parseRgbTriple(value);
  if ('refused' in parsed) throw DomainError.invalid(field, parsed.refused);
  return parsed;
}

/** "#RRGGBB" or three numbers (see parseRgbArray). */
export function parseColor(value: unknown, field: string): Rgb {
  const parsed = parseColour(value);
  if ('refused' in parsed) throw DomainError.invalid(field, parsed.refused);
  return parsed;
}

/**
 * What to do where a colour or image background lacks its colour or image: a job refuses it (400
 * naming the field), a draft keeps it pending for its start (DraftSettings).
 */
type WhenMissing<P> = (field: string, message: string, pending: PendingBackground) => P;

const refuseMissing: WhenMissing<never> = (field, message) => {
  throw DomainError.invalid(field, message);
};
const keepPending: WhenMissing<PendingBackground> = (_field, _message, pending) => pending;

function backgroundFromBgType<P>(request: JobRequest, whenMissing: WhenMissing<P>): Background | P {
  const bgType = request.bg_type ?? 'transparent';
  switch (bgType) {
    case 'transparent':
      return { type: 'transparent' };
    case 'green':
    case 'white':
    case 'black':
    case 'blue':
      return { type: 'color', color: NAMED_COLORS[bgType] };
    case 'custom':
    case 'color':
      if (request.bg_color === undefined || request.bg_color === null) return whenMissing('bg_color', `is required when bg_type is '${bgType}'`, { type: 'color', color: null });
      return { type: 'color', color: parseRgbArray(request.bg_color, 'bg_color') };
    case 'image':
      if (!request.bg_image_url) return whenMissing('bg_image_url', "is required when bg_type is 'image'", { type: 'image', image_url: null });
      return { type: 'image', image_url: request.bg_image_url };
  }
}

/** `background` wins over `bg_type` when both are sent. */
function backgroundOf<P>(request: JobRequest, whenMissing: WhenMissing<P>): Background | P {
  const background = request.background;
  if (!background) return backgroundFromBgType(request, whenMissing);
  switch (background.type) {
    case 'transparent':
      return { type: 'transparent' };
    case 'color':
      if (background.color === undefined || background.color === null) return whenMissing('background.color', "is required when background.type is 'color'", { type: 'color', color: null });
      return { type: 'color', color: parseColor(background.color, 'background.color') };
    case 'image':
      if (!background.image_url) return whenMissing('background.image_url', "is required when background.type is 'image'", { type: 'image', image_url: null });
      return { type: 'image', image_url: background.image_url };
  }
}

/** A job's background: a colour or image background without its colour or image is a 400. */
export function resolveBackground(request: JobRequest): Background {
  return backgroundOf(request, refuseMissing);
}

function resolveComposition(request: JobRequest): Composition | null {
  const composition = request.composition;
  if (!composition) return null;
  const foreground = composition.foreground ?? {};
  refuseForegroundOverMaximum(composition.canvas, foreground.scale ?? 1);
  return {
    ...(composition.canvas ? { canvas: { width: composition.canvas.width, height: composition.canvas.height } } : {}),
    foreground: {
      anchor: foreground.anchor ?? 'center',
      scale: foreground.scale ?? 1,
      offset: { x: foreground.offset?.x ?? 0, y: foreground.offset?.y ?? 0 },
    },
  };
}

/**
 * Scale 1 fits the video into the canvas, so one side of the foreground is the canvas's side times
 * the scale, whatever the video: where even the canvas's shorter side comes out over the engine's
 * maximum, the job could only fail once it ran (input_invalid), so it is a 400 now.
 */
function refuseForegroundOverMaximum(canvas: { width: number; height: number } | undefined, scale: number): void {
  if (!canvas) return;
  const shortest = Math.round(Math.min(canvas.width, canvas.height) * scale);
  if (shortest > MAX_FOREGROUND_SIDE) {
    throw DomainError.invalid('composition.foreground.scale', `scale ${scale} on a ${canvas.width}x${canvas.height} canvas makes the foreground at least ${shortest} px on a side, over ${MAX_FOREGROUND_SIDE} px`);
  }
}

/** The settings a job runs with: every default applied, every rule checked (a 400 naming the field otherwise). */
export function resolveJobSettings(request: JobRequest): JobSettings {
  const settings = settingsOf(request, resolveBackground(request));
  const { outputFormat, background } = settings;
  if (background.type === 'transparent' && !ALPHA_FORMATS.includes(outputFormat)) {
    throw DomainError.invalid(
      'output_format',
      `'${outputFormat}' cannot carry transparency: choose webm, mov, gif, webp or png_sequence, or a color or image background`,
    );
  }
  return settings;
}

/**
 * A draft's settings (DraftSettings): each field it sends is checked as a job's, but what its start
 * may still complete is not refused (a colour or image to come, transparency over mp4).
 */
export function resolveDraftSettings(request: JobRequest): DraftSettings {
  return settingsOf(request, backgroundOf(request, keepPending));
}

function settingsOf<B extends Background | PendingBackground>(request: JobRequest, background: B): Omit<JobSettings, 'background'> & { background: B } {
  return {
    model: request.model ?? 'original',
    outputFormat: request.output_format ?? 'webm',
    background,
    composition: resolveComposition(request),
    previewDuration: request.preview_duration ?? null,
    textPrompt: request.text_prompt ?? null,
  };
}

/** Start overrides replace the draft's fields; `background` sent at start also clears an earlier `bg_type`. */
export function mergeRequest(draft: JobRequest, overrides: JobRequest): JobRequest {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) as JobRequest;
  const merged: JobRequest = { ...draft, ...defined };
  if (defined.bg_type !== undefined && defined.background === undefined) delete merged.background;
  return merged;
}
