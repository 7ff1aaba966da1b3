import { isHexColour } from '../../contract/colour';
import { MODELS as CONTRACT_MODELS, OUTPUT_EXTENSIONS, OUTPUT_FORMATS } from '../../contract/job-settings';
import { JOB_STATUSES } from '../../contract/job-status';
import { UsageError } from './errors';

/** The order --help lists the models in (the set is the contract's). */
export const MODELS: readonly string[] = ['original', 'light', 'human', 'pro'].filter((model) => (CONTRACT_MODELS as readonly string[]).includes(model));
export const FORMATS: readonly string[] = OUTPUT_FORMATS;
export const STATUSES: readonly string[] = JOB_STATUSES;

export const EXTENSION_OF_FORMAT: Record<string, string> = Object.fromEntries(OUTPUT_FORMATS.map((format) => [format, `.${OUTPUT_EXTENSIONS[format]}`]));
const FORMAT_OF_EXTENSION: Record<string, string> = Object.fromEntries(OUTPUT_FORMATS.map((format) => [`.${OUTPUT_EXTENSIONS[format]}`, format]));

export type Background = { type: 'transparent' } | { type: 'color'; color: string } | { type: 'image'; image_url: string };

/** --bg transparent | #RRGGBB | https://image */
export function parseBackground(value: string): Background {
  if (value === 'transparent') return { type: 'transparent' };
  if (isHexColour(value)) return { type: 'color', color: value.toUpperCase() };
  if (/^https?:\/\/\S+$/i.test(value)) return { type: 'image', image_url: value };
  throw new UsageError(`--bg must be transparent, a colour like #00FF00 or an http(s) image URL (got "${value}")`);
}

/** --format wins; otherwise the output file's extension decides; webm by default. */
export function outputFormat(format: string | undefined, output: string | undefined): string {
  if (format !== undefined) {
    if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}`);
    return format;
  }
  const extension = output ? output.slice(output.lastIndexOf('.')).toLowerCase() : '';
  return FORMAT_OF_EXTENSION[extension] ?? 'webm';
}

export function oneOf(value: string | undefined, name: string, allowed: readonly string[]): string | undefined {
  if (value !== undefined && !allowed.includes(value)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return value;
}

export function numberOption(value: string | undefined, name: string, range: { min: number; max: number; integer?: boolean }): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed < range.min || parsed > range.max || (range.integer && !Number.isInteger(parsed))) {
    throw new UsageError(`--${name} must be ${range.integer ? 'an integer' : 'a number'} from ${range.min} to ${range.max}`);
  }
  return parsed;
}
