/** The container types an upload may be (sniffed from its first bytes by the engine's media library). */
export type { SupportedVideoType } from '../../../engine/media/sniff';

/** how long a video lasts and how many frames a second the engine reads from it (unknown for uploads stored before it was kept) */
export interface VideoTiming {
  durationSeconds: number;
  frameRate?: number | null;
}

export interface ProbedVideo extends VideoTiming {
  width: number;
  height: number;
}

/** Why the input gate refused a file: `too_large` for the size limits, `unsupported` for the rest. */
export interface MediaRefusal {
  refused: 'unsupported' | 'too_large';
  reason: string;
}

export const isRefusal = (result: object): result is MediaRefusal => 'refused' in result;

/**
 * The input gate (engine/media/input-gate.ts) as the service sees it: a video or image file is
 * checked by its bytes, probed pinned to its type and held to the size limits before anything decodes it.
 */
export abstract class VideoProbe {
  /** an accepted, decodable video within the limits, with its duration; otherwise the refusal */
  abstract probe(localPath: string): Promise<ProbedVideo | MediaRefusal>;
  /** an accepted, decodable background image within the limit; otherwise the refusal */
  abstract probeImage(localPath: string): Promise<{ width: number; height: number } | MediaRefusal>;
  /** how many first bytes of a file `refusalOfHead` reads */
  abstract readonly headBytes: number;
  /** why a video (or background image) whose file begins with `head` is refused by those bytes alone, in the words of `probe`; null when they may be one */
  abstract refusalOfHead(head: Uint8Array, kind: 'video' | 'image'): string | null;
}
