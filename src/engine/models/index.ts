import { mkdirSync } from 'fs';
import { EngineError, ModelName, SegmentationModel } from '../types';
import { HumanModel } from './human/human-model';
import { IsnetSegmenter } from './isnet/isnet-segmenter';
import { LightModel } from './light/light-model';
import { OriginalModel } from './original/original-model';
import { NanodetDetector } from './pro/nanodet-detector';
import { ProModel } from './pro/pro-model';
import { RvmMatter } from './rvm/rvm-matter';
import { RvmGeometry } from './rvm/rvm-model-file';
import { RvmMatters } from './rvm/rvm-matters';

export interface LoadModelOptions {
  /** where converted and assembled model files are cached (created when missing) */
  cacheDir: string;
}

type Size = { width: number; height: number };

/** One onnxruntime session per model file and input size for the whole process; RVM's idle ones closed beyond a few (rvm-matters.ts). */
class SegmenterRegistry {
  private readonly isnets = new Map<string, Promise<IsnetSegmenter>>();
  private readonly detectors = new Map<string, Promise<NanodetDetector>>();
  private readonly rvms = new RvmMatters((geometry) => RvmMatter.open(geometry, this.cacheDir));

  constructor(private readonly cacheDir: string) {}

  isnet = (size: Size): Promise<IsnetSegmenter> => memo(this.isnets, `${size.width}x${size.height}`, () => IsnetSegmenter.open(this.cacheDir, size));

  rvm = (geometry: RvmGeometry): Promise<RvmMatter> => this.rvms.get(geometry);

  detector = (): Promise<NanodetDetector> => memo(this.detectors, 'nanodet', () => NanodetDetector.open(this.cacheDir));
}

function memo<T>(cache: Map<string, Promise<T>>, key: string, create: () => Promise<T>): Promise<T> {
  let value = cache.get(key);
  if (!value) {
    value = create();
    value.catch(() => cache.delete(key)); // a failed load may be retried
    cache.set(key, value);
  }
  return value;
}

const registries = new Map<string, SegmenterRegistry>();
const models = new Map<string, SegmentationModel>();

function createModel(name: ModelName, registry: SegmenterRegistry): SegmentationModel {
  switch (name) {
    case 'light':
      return new LightModel({ rvm: registry.rvm, detector: registry.detector });
    case 'original':
      return new OriginalModel({ isnet: registry.isnet, rvm: registry.rvm, detector: registry.detector });
    case 'human':
      return new HumanModel({ rvm: registry.rvm, detector: registry.detector });
    case 'pro':
      return new ProModel(registry.isnet, registry.detector, registry.rvm);
    default:
      throw new EngineError('model_unavailable', `unknown model ${String(name)}`);
  }
}

/**
 * The segmentation model `name`, loaded once per process and cache directory. Model files come
 * from installed npm packages only (converted or assembled into `cacheDir` on first use).
 */
export async function loadModel(name: ModelName, options: LoadModelOptions): Promise<SegmentationModel> {
  mkdirSync(options.cacheDir, { recursive: true });
  let registry = registries.get(options.cacheDir);
  if (!registry) {
    registry = new SegmenterRegistry(options.cacheDir);
    registries.set(options.cacheDir, registry);
  }
  const key = `${options.cacheDir}\u0000${name}`;
  let model = models.get(key);
  if (!model) {
    model = createModel(name, registry);
    models.set(key, model);
  }
  return model;
}
