import { Injectable } from '@nestjs/common';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { OUTPUT_EXTENSIONS } from '../../../../contract/job-settings';
import { joinSegments } from '../../../../engine/chunks/join-segments';
import { EngineError, withoutFilePaths } from '../../../../engine/types';
import { ObjectStorage } from '../../../storage/ports/object-storage';
import { WorkerFailure } from '../../../worker-gateway/ports/worker-gateway';
import { ChunkJoiner, JoinChunksRequest } from '../../ports/chunk-joiner';

/** Joins the chunks on this machine with the engine's joinSegments (ffmpeg, mostly stream copy). */
@Injectable()
export class EngineChunkJoiner extends ChunkJoiner {
  constructor(private readonly storage: ObjectStorage) {
    super();
  }

  async join(request: JoinChunksRequest, signal?: AbortSignal): Promise<void> {
    const workDir = await mkdtemp(path.join(tmpdir(), 'backdrop-join-'));
    try {
      const outputPath = path.join(workDir, `output.${OUTPUT_EXTENSIONS[request.settings.outputFormat]}`);
      await this.storage.withLocalFile(request.inputKey, (sourcePath) =>
        this.withLocalFiles(request.chunkKeys, [], (chunkPaths) =>
          joinSegments(
            {
              sourcePath,
              chunkPaths,
              chunkDurations: request.chunkDurations,
              outputFormat: request.settings.outputFormat,
              outputPath,
              limits: request.mediaLimits,
              previewDuration: request.settings.previewDuration ?? undefined,
              workDir,
            },
            signal,
          ),
        ),
      );
      await this.storage.putFile(request.outputKey, outputPath).catch((error: Error) => {
        throw new WorkerFailure('output_failed', `The output could not be stored: ${withoutFilePaths(error.message)}`);
      });
    } catch (error) {
      if (error instanceof EngineError) throw new WorkerFailure(error.code, error.message);
      throw error;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }

  /** Every key as a local file at once (nested withLocalFile: S3 copies are removed afterwards). */
  private withLocalFiles<T>(keys: string[], paths: string[], use: (paths: string[]) => Promise<T>): Promise<T> {
    if (paths.length === keys.length) return use(paths);
    return this.storage.withLocalFile(keys[paths.length], (local) => this.withLocalFiles(keys, [...paths, local], use));
  }
}
