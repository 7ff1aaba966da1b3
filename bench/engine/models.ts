/**
 * The real models, loaded by path at run time: the benchmark keeps building (and still measures
 * the ffmpeg floors) while src/engine/models/index.ts is missing or a model cannot load.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ModelName, SegmentationModel } from '../../src/engine/types';

export type LoadModel = (name: ModelName, options: { cacheDir: string }) => Promise<SegmentationModel>;

export const MODELS_MODULE = join(__dirname, '..', '..', 'src', 'engine', 'models');

export function modelsAvailable(): boolean {
  return ['index.js', 'index.ts'].some((file) => existsSync(join(MODELS_MODULE, file)));
}

export async function loadModelsModule(): Promise<LoadModel> {
  const module = (await import(MODELS_MODULE)) as { loadModel?: LoadModel };
  if (typeof module.loadModel !== 'function') throw new Error(`${MODELS_MODULE} exports no loadModel`);
  return module.loadModel;
}
