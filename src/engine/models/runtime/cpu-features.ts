import { readFileSync } from 'fs';

/**
 * What onnxruntime's int8 convolutions run on here:
 * - `dot-product`: 8-bit dot-product instructions, x86 AVX-512 VNNI or AVX-VNNI, arm64's dot product
 *   (every Apple M-series chip);
 * - `pairwise`: x86 with AVX2 only (AMD Zen 2 and 3, Intel before Cascade Lake and Alder Lake), where
 *   onnxruntime multiplies uint8 by int8 with VPMADDUBSW, which adds each pair of products in 16 bits
 *   and can saturate (onnx/qdq-quantizer.ts, WeightBits);
 * - `none`: neither (arm64 without the dot product, unknown CPUs).
 *
 * `cpuinfo` is /proc/cpuinfo's text (null where there is none: not undefined, which would read this
 * machine's).
 */
export type Int8Arithmetic = 'dot-product' | 'pairwise' | 'none';

export function int8Arithmetic(cpuinfo: string | null = readCpuinfo(), arch: string = process.arch, platform: string = process.platform): Int8Arithmetic {
  if (arch === 'arm64' && platform === 'darwin') return 'dot-product';
  const flags = new Set((cpuinfo?.match(/^(?:flags|Features)\s*:(.*)$/m)?.[1] ?? '').trim().split(/\s+/));
  if (arch === 'x64') {
    if (flags.has('avx512_vnni') || flags.has('avx_vnni')) return 'dot-product';
    return flags.has('avx2') ? 'pairwise' : 'none';
  }
  if (arch === 'arm64' && flags.has('asimddp')) return 'dot-product';
  return 'none';
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
