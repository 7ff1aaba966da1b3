import { existsSync } from 'node:fs';
import { ObjectStorage } from '../../storage/ports/object-storage';
import { EngineError, withoutFilePaths } from '../../../engine/types';
import { EnginePool, engineRequestOf } from '../../../common/worker-protocol/engine-request';
import { ffmpegPath, ffprobePath } from '../../../engine/media/binaries';
import { WorkerFailure, WorkerGateway, WorkerOutcome, WorkerTask } from '../ports/worker-gateway';
import { access, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { constants } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** Runs the engine on this machine, in child processes of the pool, so the API stays responsive. */
export class LocalWorkerGateway extends WorkerGateway {
  private pool: EnginePool | null = null;

  /** `modelCacheDir`: where the engine keeps its converted models (MODEL_CACHE_DIR) */
  constructor(
    private readonly storage: ObjectStorage,
    private readonly createPool: () => EnginePool,
    private readonly modelCacheDir: string,
  ) {
    super();
  }

  async process(task: WorkerTask, onProgress: (percent: number) => void, signal?: AbortSignal): Promise<WorkerOutcome> {
    this.pool ??= this.createPool();
    const pool = this.pool;
    const workDir = await mkdtemp(path.join(tmpdir(), 'backdrop-job-'));
    try {
      return await this.storage.withLocalFile(task.inputKey, (inputPath) =>
        this.withOptionalLocalFile(task.backgroundImageKey, async (backgroundPath) => {
          const outputPath = path.join(workDir, path.basename(task.outputKey));
          const result = await pool.run(
            engineRequestOf(task, inputPath, outputPath, backgroundPath),
            (progress) => onProgress(progress.framesTotal > 0 ? (100 * progress.framesDone) / progress.framesTotal : 0),
            signal,
          );
          await this.storage.putFile(task.outputKey, outputPath).catch((error: Error) => {
            throw new WorkerFailure('output_failed', `The output could not be stored: ${withoutFilePaths(error.message)}`);
          });
          return { durationSeconds: result.durationSeconds, frames: result.frames, notes: result.notes };
        }),
      );
    } catch (error) {
      if (error instanceof EngineError) throw new WorkerFailure(error.code, error.message);
      throw error;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }

  async check(): Promise<string> {
    const missing = [ffmpegPath(), ffprobePath()].find((binary) => !existsSync(binary));
    return missing ? `missing binary ${missing}` : this.checkModelCache();
  }

  /**
   * Models are converted into the cache on first use: where this process may not write there, a
   * job needing a model not yet in it failed on its own (model_unavailable) while health said ok.
   * A cache prepared ahead and mounted read-only serves while it holds models.
   */
  private async checkModelCache(): Promise<string> {
    try {
      await mkdir(this.modelCacheDir, { recursive: true });
      await access(this.modelCacheDir, constants.W_OK);
      return 'ok';
    } catch (error) {
      const models = await readdir(this.modelCacheDir).then((names) => names.filter((name) => name.endsWith('.onnx')).length, () => 0);
      if (models > 0) return 'ok';
      return `the model cache ${this.modelCacheDir} (MODEL_CACHE_DIR) cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}) and holds no models: every job would fail`;
    }
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }

  private withOptionalLocalFile<T>(key: string | null, use: (path: string | null) => Promise<T>): Promise<T> {
    return key ? this.storage.withLocalFile(key, use) : use(null);
  }
}

