/** cost = ceil(seconds x credits_per_minute / 60); zero seconds cost nothing. */
export function creditCost(seconds: number, creditsPerMinute: number): number {
  if (!(seconds > 0) || !(creditsPerMinute > 0)) return 0;
  // Rounded to micro-credits first so float noise (4.000000001 s) does not bill an extra credit.
  return Math.ceil(Math.round(((seconds * creditsPerMinute) / 60) * 1e6) / 1e6);
}

/** The least any job is charged: one credit, as any length above zero is rounded up, unless the model is free. */
export function smallestCharge(creditsPerMinute: number): number {
  return creditsPerMinute > 0 ? 1 : 0;
}

/** Seconds a start is billed for: the probed duration, or the preview length when shorter. */
export function billableSeconds(durationSeconds: number, previewDuration: number | null): number {
  return previewDuration === null ? durationSeconds : Math.min(durationSeconds, previewDuration);
}

/**
 * Why a video of `durationSeconds` is not processed: what would be processed (a preview's seconds,
 * else the whole) lasts over `maxSeconds`. null when it is within.
 */
export function overLengthLimit(durationSeconds: number, previewDuration: number | null, maxSeconds: number): string | null {
  if (billableSeconds(durationSeconds, previewDuration) <= maxSeconds) return null;
  return `the video lasts ${Math.round(durationSeconds * 10) / 10} s, over the ${maxSeconds} s limit`;
}
