import { cpus } from 'node:os';
import { hasInt8DotProduct } from '../../src/engine/models/runtime/cpu-features';
import { rvmPrecision } from '../../src/engine/models/rvm/rvm-int8';

/** the CPU, its cores, and the precision `light` and `human` run RVM at on it (their speed depends on it most) */
export function cpuLine(): string {
  const dotProduct = hasInt8DotProduct();
  return `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores; 8-bit dot products ${dotProduct ? 'yes' : 'no'}: RVM in ${rvmPrecision(dotProduct)} for light and human`;
}
