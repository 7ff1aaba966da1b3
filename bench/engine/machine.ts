import { cpus } from 'node:os';
import { int8Arithmetic } from '../../src/engine/models/runtime/cpu-features';
import { pipelinedAt } from '../../src/engine/models/rvm/rvm-model-file';

/**
 * the CPU, its cores, and what its int8 arithmetic decides (runtime/cpu-features.ts): the precision
 * every model runs RVM at, in how many stages it runs (rvm-model-file.ts, pipelinedAt), and whether
 * `original` and `pro` matte the mirrored frame beside it (people-rvm.ts). ISNet runs in
 * int8 either way, but without 8-bit dot products it takes 1.8x less CPU than in fp32 (AMD EPYC Zen 3, 1024x1024)
 * against 2.5x with them (isnet-int8.ts): `original`'s ratio to the peer library, which runs ISNet in
 * fp32, is lower on such a CPU.
 */
export function cpuLine(): string {
  const arithmetic = int8Arithmetic();
  const { precision, stages } = pipelinedAt(arithmetic);
  const dotProduct = arithmetic === 'dot-product';
  return `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores; 8-bit dot products ${dotProduct ? 'yes' : arithmetic === 'pairwise' ? 'no (AVX2)' : 'no'}: RVM in ${precision}, in ${stages} stages${dotProduct ? ', mirrored pair for original and pro' : ', no mirrored pair'}`;
}
