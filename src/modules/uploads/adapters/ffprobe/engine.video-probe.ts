import { Inject, Injectable } from '@nestjs/common';
import { availableParallelism } from 'node:os';
import { ConcurrencyLimit } from '../../../../common/concurrency-limit';
import { APP_CONFIG, AppConfig } from '../../../../config/app-config';
import { admitImage, HEAD_BYTES, imageHeadRefusal, InputTooLarge, probe, videoHeadRefusal } from '../../../../engine/media/input-gate';
import { EngineError } from '../../../../engine/types';
import { MediaRefusal, ProbedVideo, VideoProbe } from '../../ports/video-probe';

/**
 * The engine's input gate: sniffed, pinned ffprobe, size limits from the configuration, one frame
 * decoded. A process runs as many probes at once as it has cores; the rest wait their turn (each
 * upload ran its own, up to 60 s: a hundred uploads, a hundred ffprobes and decoders at once).
 */
@Injectable()
export class EngineVideoProbe extends VideoProbe {
  private readonly probes = new ConcurrencyLimit(Math.max(2, availableParallelism()));

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    super();
  }

  async probe(localPath: string): Promise<ProbedVideo | MediaRefusal> {
    try {
      const info = await this.probes.run(() => probe(localPath, this.config.mediaLimits));
      return { durationSeconds: info.durationSeconds, frameRate: info.fps, width: info.width, height: info.height };
    } catch (error) {
      return refusalOf(error);
    }
  }

  async probeImage(localPath: string): Promise<{ width: number; height: number } | MediaRefusal> {
    try {
      const image = await this.probes.run(() => admitImage(localPath, this.config.mediaLimits));
      return { width: image.width, height: image.height };
    } catch (error) {
      return refusalOf(error);
    }
  }

  readonly headBytes = HEAD_BYTES;

  refusalOfHead(head: Uint8Array, kind: 'video' | 'image'): string | null {
    return kind === 'video' ? videoHeadRefusal(head) : imageHeadRefusal(head);
  }
}

function refusalOf(error: unknown): MediaRefusal {
  if (error instanceof InputTooLarge) return { refused: 'too_large', reason: error.message };
  if (error instanceof EngineError) return { refused: 'unsupported', reason: error.message };
  throw error;
}
