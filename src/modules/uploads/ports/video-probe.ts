/** The container types an upload may be (sniffed from its first bytes by the engine's media library). */
export type { SupportedVideoType } from '../../../engine/media/sniff';

export interface ProbedVideo {
  durationSeconds: number;
  width: number;
  height: number;
}

/** Confirms that a file really is a decodable video (ffprobe), and reads its duration. */
export abstract class VideoProbe {
  /** null when the file is not a decodable video */
  abstract probe(localPath: string): Promise<ProbedVideo | null>;
}
