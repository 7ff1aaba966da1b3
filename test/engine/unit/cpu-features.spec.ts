import { hasInt8DotProduct } from '../../../src/engine/models/runtime/cpu-features';
import { rvmPrecision } from '../../../src/engine/models/rvm/rvm-int8';

/** /proc/cpuinfo's first processor, trimmed to the lines that matter */
const x86 = (flags: string) => `processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\nflags\t\t: fpu vme sse sse2 ${flags} xsave\nbogomips\t: 4890.81\n`;
const arm = (features: string) => `processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm ${features} cpuid\nCPU implementer\t: 0x41\n`;

describe('which CPUs run RVM in int8', () => {
  it.each([
    ['x86 with AVX-512 VNNI (AMD Zen 4, Intel Cascade Lake on)', x86('avx2 fma avx512f avx512_vnni avx512_bf16'), 'x64', 'linux', true],
    ['x86 with AVX-VNNI (Intel Alder Lake on)', x86('avx2 fma avx_vnni'), 'x64', 'linux', true],
    ['x86 with AVX2 only (AMD Zen 3)', x86('avx2 fma bmi2 vaes vpclmulqdq'), 'x64', 'linux', false],
    ['a flag that only contains the name does not count', x86('avx2 avx512_vnni_disabled'), 'x64', 'linux', false],
    ['arm64 with the dot product', arm('aes pmull sha1 sha2 crc32 atomics asimddp'), 'arm64', 'linux', true],
    ['arm64 without it (Cortex-A72)', arm('aes pmull sha1 sha2 crc32'), 'arm64', 'linux', false],
    ['Apple silicon (no /proc/cpuinfo)', null, 'arm64', 'darwin', true],
    ['an x86 Mac or Windows (no /proc/cpuinfo)', null, 'x64', 'darwin', false],
  ])('%s', (_, cpuinfo, arch, platform, expected) => {
    expect(hasInt8DotProduct(cpuinfo, arch, platform)).toBe(expected);
    expect(rvmPrecision(expected)).toBe(expected ? 'int8' : 'float32');
  });
});
