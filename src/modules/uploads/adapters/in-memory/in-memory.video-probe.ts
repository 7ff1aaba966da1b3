import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { MediaRefusal, ProbedVideo, VideoProbe } from '../../ports/video-probe';

const digestOf = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/**
 * The input gate without ffprobe: it knows the files it was told about (`knowVideo`, `knowImage`, by
 * their bytes) and refuses any other as the real gate refuses what it cannot read.
 */
export class InMemoryVideoProbe extends VideoProbe {
  private readonly videos = new Map<string, ProbedVideo>();
  private readonly images = new Map<string, { width: number; height: number }>();

  knowVideo(bytes: Buffer | string, probed: ProbedVideo): this {
    this.videos.set(digestOf(bytes), probed);
    return this;
  }

  knowImage(bytes: Buffer | string, size: { width: number; height: number }): this {
    this.images.set(digestOf(bytes), size);
    return this;
  }

  async probe(localPath: string): Promise<ProbedVideo | MediaRefusal> {
    return this.videos.get(digestOf(await readFile(localPath))) ?? { refused: 'unsupported', reason: 'not a video this probe knows' };
  }

  async probeImage(localPath: string): Promise<{ width: number; height: number } | MediaRefusal> {
    return this.images.get(digestOf(await readFile(localPath))) ?? { refused: 'unsupported', reason: 'not an image this probe knows' };
  }

  /** files are known by all their bytes: any head may begin one, and the probe refuses the rest */
  readonly headBytes = 1;

  refusalOfHead(): string | null {
    return null;
  }
}
