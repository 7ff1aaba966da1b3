import { createHash } from 'crypto';
import { readFileSync } from 'fs';
import { dirname, join } from 'path';
import { EngineError } from '../../types';
import { cachedModelFile } from '../runtime/model-file-cache';

/** The ISNet builds that @imgly/background-removal-data ships as chunk files. */
export type IsnetVariant = 'medium' | 'small';

interface ChunkedResource {
  chunks: { hash: string; offsets: [number, number] }[];
  size: number;
}

function dataPackageDir(): string {
  try {
    return dirname(require.resolve('@imgly/background-removal-data/package.json'));
  } catch {
    throw new EngineError('model_unavailable', 'the npm package @imgly/background-removal-data is not installed');
  }
}

/**
 * Joins the chunks of one ISNet build into `<cacheDir>/isnet-<variant>.onnx` (once) and returns
 * its path. Each chunk is checked against the sha256 its file is named after.
 */
export function assembleIsnet(variant: IsnetVariant, cacheDir: string): string {
  return cachedModelFile(join(cacheDir, `isnet-${variant}.onnx`), () => joinedChunks(variant));
}

function joinedChunks(variant: IsnetVariant): Buffer {
  const dist = join(dataPackageDir(), 'dist');
  const resources = JSON.parse(readFileSync(join(dist, 'resources.json'), 'utf8')) as Record<string, ChunkedResource>;
  const resource = resources[`/models/${variant}`];
  if (!resource) throw new EngineError('model_unavailable', `resources.json lists no /models/${variant}`);
  const model = Buffer.alloc(resource.size);
  for (const chunk of resource.chunks) {
    const bytes = readFileSync(join(dist, chunk.hash));
    const [start, end] = chunk.offsets;
    if (bytes.length !== end - start) throw new EngineError('model_unavailable', `chunk ${chunk.hash} has ${bytes.length} bytes, expected ${end - start}`);
    if (createHash('sha256').update(bytes).digest('hex') !== chunk.hash) {
      throw new EngineError('model_unavailable', `chunk ${chunk.hash} of /models/${variant} is corrupt`);
    }
    bytes.copy(model, start);
  }
  return model;
}
