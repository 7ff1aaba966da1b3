import { readFileSync } from 'fs';

/**
 * Whether the CPU has 8-bit dot-product instructions, which onnxruntime's int8 convolutions are
 * built on: x86 AVX-512 VNNI or AVX-VNNI, arm64's dot product (every Apple M-series chip). Without
 * them (x86 with AVX2 only: AMD Zen 2 and 3, Intel before Cascade Lake and Alder Lake) onnxruntime
 * multiplies uint8 by int8 in 16-bit pairs that can saturate. `cpuinfo` is /proc/cpuinfo's text
 * (null where there is none: not undefined, which would read this machine's); unknown CPUs count as
 * without.
 */
export function hasInt8DotProduct(cpuinfo: string | null = readCpuinfo(), arch: string = process.arch, platform: string = process.platform): boolean {
  if (arch === 'arm64' && platform === 'darwin') return true;
  const flags = new Set((cpuinfo?.match(/^(?:flags|Features)\s*:(.*)$/m)?.[1] ?? '').trim().split(/\s+/));
  if (arch === 'x64') return flags.has('avx512_vnni') || flags.has('avx_vnni');
  if (arch === 'arm64') return flags.has('asimddp');
  return false;
}

let cpuinfoText: string | null | undefined;

function readCpuinfo(): string | null {
  if (cpuinfoText === undefined) {
    try {
      cpuinfoText = readFileSync('/proc/cpuinfo', 'utf8');
    } catch {
      cpuinfoText = null;
    }
  }
  return cpuinfoText;
}
