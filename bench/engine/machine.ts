import { cpus } from 'node:os';
import { hasInt8DotProduct } from '../../src/engine/models/runtime/cpu-features';
import { rvmPrecision } from '../../src/engine/models/rvm/rvm-int8';
import { rvmStages } from '../../src/engine/models/rvm/rvm-model-file';

/**
 * the CPU, its cores, and what its 8-bit dot products decide: the precision every model runs RVM at,
 * in how many stages it runs (rvm-model-file.ts, rvmStages), and whether
 * `original` and `pro` matte the mirrored frame beside it (people-rvm.ts). ISNet runs in
 * int8 either way, but without them it takes 1.8x less CPU than in fp32 (AMD EPYC Zen 3, 1024x1024)
 * against 2.5x with them (isnet-int8.ts): `original`'s ratio to the peer library, which runs ISNet in
 * fp32, is lower on such a CPU.
 */
export function cpuLine(): string {
  const dotProduct = hasInt8DotProduct();
  const precision = rvmPrecision(dotProduct);
  return `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores; 8-bit dot products ${dotProduct ? 'yes' : 'no'}: RVM in ${precision}, in ${rvmStages(precision)} stages${precision === 'int8' ? ', mirrored pair for original and pro' : ', no mirrored pair'}`;
}
