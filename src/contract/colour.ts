/**
 * Colours as the API accepts them: "#RRGGBB", or three numbers, all in [0,1] (normalized, the
 * original service's convention) or integers 0..255. The one parser of both forms; callers turn
 * a refusal (the reason string) into their own error.
 */
export type Rgb = [number, number, number];

export const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;

export const isHexColour = (value: unknown): value is string => typeof value === 'string' && HEX_COLOUR.test(value);

export const isNumberTriple = (value: unknown): value is [number, number, number] =>
  Array.isArray(value) && value.length === 3 && value.every((n) => typeof n === 'number' && Number.isFinite(n));

export function hexToRgb(hex: string): Rgb {
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as Rgb;
}

/** An Rgb, or why the value is not a colour. */
export function parseRgbTriple(value: unknown): Rgb | { refused: string } {
  if (!isNumberTriple(value)) return { refused: 'must be an array of three numbers' };
  if (value.some((n) => n < 0)) return { refused: 'entries must not be negative' };
  if (value.every((n) => n <= 1)) return value.map((n) => Math.round(n * 255)) as Rgb;
  if (value.every((n) => Number.isInteger(n) && n <= 255)) return [...value];
  return { refused: 'use three numbers in [0,1] (normalized) or three integers in 0..255' };
}

/** "#RRGGBB" or a number triple. */
export function parseColour(value: unknown): Rgb | { refused: string } {
  if (typeof value === 'string') return isHexColour(value) ? hexToRgb(value) : { refused: 'must be #RRGGBB or an array of three numbers' };
  return parseRgbTriple(value);
}
