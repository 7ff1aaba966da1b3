import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';

/** The built dashboard (dist/web, made by `npm run build:web`) and the names of its assets. */
export interface WebAssets {
  root: string | null;
  assets: ReadonlySet<string>;
}

/** dist/web seen from the compiled module (dist/src/modules/web) or from its source (src/modules/web). */
export function locateWebAssets(moduleDir: string = __dirname): WebAssets {
  const candidates = [path.resolve(moduleDir, '../../../web'), path.resolve(moduleDir, '../../../dist/web')];
  const root = candidates.find((candidate) => existsSync(path.join(candidate, 'index.html'))) ?? null;
  const assets = root ? new Set(readdirSync(path.join(root, 'assets'))) : new Set<string>();
  return { root, assets };
}
