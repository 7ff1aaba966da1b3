import { int8Arithmetic } from '../../../src/engine/models/runtime/cpu-features';
import { rvmPrecision } from '../../../src/engine/models/rvm/rvm-int8';
import { pipelinedAt } from '../../../src/engine/models/rvm/rvm-model-file';

/** /proc/cpuinfo's first processor, trimmed to the lines that matter */
const x86 = (flags: string) => `processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\nflags\t\t: fpu vme sse sse2 ${flags} xsave\nbogomips\t: 4890.81\n`;
const arm = (features: string) => `processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm ${features} cpuid\nCPU implementer\t: 0x41\n`;

describe('how each CPU runs RVM: its int8 arithmetic, the precision and the stages it decides', () => {
  it.each([
    ['x86 with AVX-512 VNNI (AMD Zen 4, Intel Cascade Lake on)', x86('avx2 fma avx512f avx512_vnni avx512_bf16'), 'x64', 'linux', 'dot-product', 'int8', 2],
    ['x86 with AVX-VNNI (Intel Alder Lake on)', x86('avx2 fma avx_vnni'), 'x64', 'linux', 'dot-product', 'int8', 2],
    ['x86 with AVX2 only (AMD Zen 3)', x86('avx2 fma bmi2 vaes vpclmulqdq'), 'x64', 'linux', 'pairwise', 'int8', 3],
    ['a flag that only contains the name does not count', x86('avx2 avx512_vnni_disabled'), 'x64', 'linux', 'pairwise', 'int8', 3],
    ['x86 without AVX2', x86('sse4_1 sse4_2 avx'), 'x64', 'linux', 'none', 'float32', 3],
    ['arm64 with the dot product', arm('aes pmull sha1 sha2 crc32 atomics asimddp'), 'arm64', 'linux', 'dot-product', 'int8', 2],
    ['arm64 without it (Cortex-A72)', arm('aes pmull sha1 sha2 crc32'), 'arm64', 'linux', 'none', 'float32', 3],
    ['Apple silicon (no /proc/cpuinfo)', null, 'arm64', 'darwin', 'dot-product', 'int8', 2],
    ['an x86 Mac or Windows (no /proc/cpuinfo)', null, 'x64', 'darwin', 'none', 'float32', 3],
  ])('%s', (_, cpuinfo, arch, platform, arithmetic, precision, stages) => {
    const found = int8Arithmetic(cpuinfo, arch, platform);
    expect(found).toBe(arithmetic);
    expect(rvmPrecision(found)).toBe(precision);
    expect(pipelinedAt(found)).toEqual({ precision, stages });
  });
});
