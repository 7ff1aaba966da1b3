/**
 * A model module for the process pool's tests (the pool's `modelModule` option): same shape as
 * src/engine/models/index.ts. `light` is fast, `pro` takes 100 ms a frame, `original` blocks its
 * event loop for 300 ms a frame, `human` fails to load.
 */
import { EngineError, ModelName, SegmentationModel } from '../../../src/engine/types';
import { createFakeModel } from './fake-model';

export async function loadModel(name: ModelName, _options: { cacheDir: string }): Promise<SegmentationModel> {
  if (name === 'human') throw new EngineError('model_unavailable', 'human is not installed in this test');
  return createFakeModel({ kind: 'ellipse', name, delayMs: name === 'pro' ? 100 : 0, blockMs: name === 'original' ? 300 : 0 });
}
