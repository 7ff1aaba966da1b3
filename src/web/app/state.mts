/** What the dashboard remembers while the tab is open. */
import { api } from './api.mjs';
import type { Pricing } from './types.mjs';

/** The local file of each job started here: the "before" side of the comparison, without a download. */
const inputs = new Map<string, string>();

export function rememberInput(jobId: string, objectUrl: string): void {
  inputs.set(jobId, objectUrl);
}

export async function inputOf(jobId: string, videoUrl: string): Promise<string | null> {
  const known = inputs.get(jobId);
  if (known) return known;
  const blob = await api.inputVideo(videoUrl).catch(() => null);
  if (!blob) return null;
  const url = URL.createObjectURL(blob);
  inputs.set(jobId, url);
  return url;
}

let pricing: Promise<Pricing> | null = null;

/** GET /api/pricing once per tab (retried after a failure). */
export function loadPricing(): Promise<Pricing> {
  pricing ??= api.pricing().catch((error: unknown) => {
    pricing = null;
    throw error;
  });
  return pricing;
}
