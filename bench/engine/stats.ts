/** the arithmetic mean (0 for no values) */
export function mean(values: readonly number[]): number {
  return values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : 0;
}

/** the middle value (the upper middle of an even count; NaN for no values) */
export function median(values: readonly number[]): number {
  return values.length ? [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] : NaN;
}
