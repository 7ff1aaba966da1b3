/**
 * Output is written beside its final path under a hidden temporary name, then renamed into place:
 * a reader never sees a half-written file at `outputPath`, and whoever cleans up after a crash
 * (the process pool) finds the leftovers by name.
 */
import { randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

const SUFFIX = '.partial';

export function partialOutputPath(outputPath: string): string {
  return join(dirname(outputPath), `.${basename(outputPath)}.${randomBytes(6).toString('hex')}${SUFFIX}`);
}

export function isPartialOutputOf(outputPath: string, candidateName: string): boolean {
  return candidateName.startsWith(`.${basename(outputPath)}.`) && candidateName.endsWith(SUFFIX);
}

/** Removes the output and any partial files left for it (after a killed run). */
export async function removePartialOutputs(outputPath: string): Promise<void> {
  const names = await readdir(dirname(outputPath)).catch(() => [] as string[]);
  const leftovers = names.filter((name) => isPartialOutputOf(outputPath, name)).map((name) => join(dirname(outputPath), name));
  await Promise.all([outputPath, ...leftovers].map((path) => rm(path, { force: true })));
}
