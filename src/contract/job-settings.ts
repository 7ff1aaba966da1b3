/**
 * What a job can be asked for, as the API contract names it: models, output formats (with the file
 * extension of each), background types, anchors and their limits, and the settings a worker runs
 * with. Pure TypeScript importing only the contract, so the server, the worker server and src/web all read it.
 */
import type { Rgb } from './colour.js';

export const MODELS = ['original', 'light', 'pro', 'human'] as const;
export type Model = (typeof MODELS)[number];

export const OUTPUT_FORMATS = ['webm', 'mov', 'mp4', 'gif', 'webp', 'png_sequence'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The file extension of each output format (a PNG sequence is a zip of frames). */
export const OUTPUT_EXTENSIONS: Readonly<Record<OutputFormat, string>> = { webm: 'webm', mov: 'mov', mp4: 'mp4', gif: 'gif', webp: 'webp', png_sequence: 'zip' };

/** The formats that carry transparency. */
export const ALPHA_FORMATS: readonly OutputFormat[] = ['webm', 'mov', 'gif', 'webp', 'png_sequence'];

export const BG_TYPES = ['transparent', 'green', 'white', 'black', 'blue', 'custom', 'color', 'image'] as const;
export type BgType = (typeof BG_TYPES)[number];

export const ANCHORS = ['center', 'top-left', 'top-center', 'top-right', 'center-left', 'center-right', 'bottom-left', 'bottom-center', 'bottom-right'] as const;
export type Anchor = (typeof ANCHORS)[number];

export const PREVIEW_SECONDS = { min: 0.5, max: 30 } as const;
export const CANVAS_SIDE = { min: 16, max: 4096 } as const;

export type { Rgb } from './colour.js';

export type Background = { type: 'transparent' } | { type: 'color'; color: Rgb } | { type: 'image'; image_url: string };

export interface Composition {
  canvas?: { width: number; height: number };
  foreground: { anchor: Anchor; scale: number; offset: { x: number; y: number } };
}

/** The settings a worker runs with: every default applied, every rule checked. */
export interface JobSettings {
  model: Model;
  outputFormat: OutputFormat;
  background: Background;
  composition: Composition | null;
  previewDuration: number | null;
  textPrompt: string | null;
}

/** A draft's colour or image background whose colour or image is still to come with its start. */
export type PendingBackground = { type: 'color'; color: null } | { type: 'image'; image_url: null };

/**
 * A draft's settings, as far as its request goes: the contract keeps a draft's settings editable
 * until its start, so what start may complete (a colour or an image still to come, a transparent
 * background over mp4 that start's bg_type may change) is not refused at create. Start resolves
 * and checks them all (JobSettings).
 */
export interface DraftSettings extends Omit<JobSettings, 'background'> {
  background: Background | PendingBackground;
}
