/**
 * High dynamic range input (what phones record by default: HLG on iPhones, PQ for HDR10 and Dolby
 * Vision's base layer) read as standard range. Read as it is, its 10-bit code values would be taken
 * for BT.709 ones: PQ comes out dark and flat, HLG washed out, both desaturated (BT.2020 primaries
 * shown as BT.709). The models would see that picture and the output would keep it.
 *
 * Both the decoder (frames for the model) and the encoder (the colour written) tone-map the source
 * to SDR BT.709 with the same chain, so the model sees what the output shows. Measured on
 * portrait-pan made HDR with zscale (BT.2020, 10-bit HEVC, SDR's white at 100 nits), `human`'s IoU:
 * PQ 0.972 read as SDR, 0.974 tone-mapped; HLG 0.962 and 0.972; the SDR clip 0.977 (toneMapChain
 * has the figures of the chain as it is now). The chain costs
 * about 40 ms of CPU a 1920x1080 frame and 145 ms a 3840x2160 one in this ffmpeg (zscale works in
 * float), which only HDR input pays; the decoder tone-maps after scaling to the model's size.
 */

/** the transfer functions read as HDR, by ffprobe's names */
const HDR_TRANSFERS = ['smpte2084', 'arib-std-b67'] as const;
/** tags the tone-mapping trusts; anything else is taken for what HDR video carries (BT.2020) */
const PRIMARIES = ['bt2020', 'bt709'] as const;
const MATRICES = ['bt2020nc', 'bt2020c', 'bt709'] as const;

export interface HdrSignal {
  /** smpte2084: PQ; arib-std-b67: HLG */
  transfer: (typeof HDR_TRANSFERS)[number];
  primaries: (typeof PRIMARIES)[number];
  matrix: (typeof MATRICES)[number];
}

const oneOf = <T extends string>(allowed: readonly T[], value: string | undefined, fallback: T): T => (allowed.includes(value as T) ? (value as T) : fallback);

/**
 * The stream's HDR signal from ffprobe's colour tags, undefined for standard range. Only known
 * names come through: they are written into a filter graph.
 */
export function hdrSignalOf(stream: { color_transfer?: string; color_primaries?: string; color_space?: string }): HdrSignal | undefined {
  const transfer = HDR_TRANSFERS.find((name) => name === stream.color_transfer);
  if (!transfer) return undefined;
  return { transfer, primaries: oneOf(PRIMARIES, stream.color_primaries, 'bt2020'), matrix: oneOf(MATRICES, stream.color_space, 'bt2020nc') };
}

/** PQ or HLG, for the job's notes */
export const hdrName = (hdr: HdrSignal): string => (hdr.transfer === 'smpte2084' ? 'PQ' : 'HLG');

/** HDR's reference white (diffuse white, ITU-R BT.2408), which SDR's white stands for */
const REFERENCE_WHITE_NITS = 203;
/** Mobius's curve keeps light linear up to this share of reference white and rolls highlights off above it */
const MOBIUS_LINEAR_UP_TO = 0.5;

/**
 * HDR to SDR BT.709: the source's tags set from the probe (frames may carry none), to linear light
 * with HDR's reference white (203 nits) at 1.0, BT.709 primaries, Mobius's curve (light up to half
 * of reference white as it is, brighter light rolled off toward the peak, not clipped), then
 * BT.709's transfer and matrix. The frames come out tagged BT.709, so the output is too.
 *
 * With 100 nits at 1.0 and Hable's curve the picture came out a stop dark: reference white at
 * 194 of 255 and SDR's white at 158, in PQ and HLG alike. Now reference white comes out at 229,
 * a mid gray (0x40 in SDR) at 64, highlights in what is left above. portrait-pan made HDR
 * (SDR's white at 100 and at 203 nits), `human`'s IoU: PQ 0.9734 and 0.9752 -> 0.9736 and 0.9757,
 * HLG 0.9731 and 0.9748 -> 0.9733 and 0.9752, MAD 2.87-3.30 -> 2.78-3.11 x1e-3.
 */
export function toneMapChain(hdr: HdrSignal): string {
  return [
    `setparams=color_primaries=${hdr.primaries}:color_trc=${hdr.transfer}:colorspace=${hdr.matrix}`,
    `zscale=t=linear:npl=${REFERENCE_WHITE_NITS}`,
    'format=gbrpf32le',
    'zscale=p=709',
    `tonemap=mobius:param=${MOBIUS_LINEAR_UP_TO}:desat=0`,
    'zscale=t=709:m=709:r=tv',
  ].join(',');
}
