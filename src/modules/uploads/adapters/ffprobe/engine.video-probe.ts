import { Injectable } from '@nestjs/common';
import { probe } from '../../../../engine/media/probe';
import { EngineError } from '../../../../engine/types';
import { ProbedVideo, VideoProbe } from '../../ports/video-probe';

/** ffprobe plus a one-frame decode, through the engine's probe. */
@Injectable()
export class EngineVideoProbe extends VideoProbe {
  async probe(localPath: string): Promise<ProbedVideo | null> {
    try {
      const info = await probe(localPath);
      return { durationSeconds: info.durationSeconds, width: info.width, height: info.height };
    } catch (error) {
      if (error instanceof EngineError) return null;
      throw error;
    }
  }
}
