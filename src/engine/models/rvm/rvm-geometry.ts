import { evenSide } from '../../pipeline/geometry';
import { Int8Arithmetic } from '../runtime/cpu-features';
import { pipelinedAt, RvmGeometry } from './rvm-model-file';

/**
 * What RVM runs at. The model input is the video at its aspect ratio, long side at most 640 (the
 * matte is scaled up to the video by the pipeline). RVM's encoder then runs at `ratio` x that and
 * its guided filter refines the matte back to the model input. The encoder size decides quality
 * and cost. Measured at a 640x360 model input (IoU at 0.5 / dtSSD x1e-3, ms on one thread):
 *
 * | ratio | encoder | portrait-pan | rollerblade | swing | breakdance-flare | kite-walk | ms |
 * |---|---|---|---|---|---|---|---|
 * | 0.25 | 160x90 | 0.902 / 8.3 | 0.462 | 0.425 | 0.338 | 0.681 | 38 |
 * | 0.4 | 256x144 | 0.952 / 4.6 | 0.480 | 0.754 | 0.785 | 0.711 | 69 |
 * | 0.5 | 320x180 | 0.963 / 3.7 | 0.664 | 0.784 | 0.868 | 0.685 | |
 * | 0.6 | 384x216 | 0.970 / 3.2 | 0.776 | 0.799 | | | 56 |
 * | 0.65 | 416x234 | 0.968 / 3.2 | | | | | |
 * | 0.7 | 448x252 | 0.973 / 3.0 | 0.838 | 0.810 | 0.898 | 0.637 | 76 |
 * | 0.75 | 480x270 | 0.973 / 2.9 | 0.854 | 0.819 | 0.887 | 0.611 | 87 |
 * | 1 | 640x360 | 0.977 / 2.5 | 0.876 | 0.826 | 0.914 | 0.600 | |
 *
 * CPU per frame of the whole model with its recurrent state (process CPU, both threads, 854x480
 * DAVIS input at 640x360, one run each, same day): 480 px 170 ms, 640 px 205 ms (+20%); 640 px with
 * its larger convolutions in int8 (rvm-int8.ts) 165 ms at a mean of 0.868 on the three people
 * sequences against 0.872 in fp32. A model input at the DAVIS clips' own 854x480 measured 0.876 at
 * a 640 px encoder (250 ms) and 0.893 / 0.840 on rollerblade / swing at 854 px (400 ms): the
 * encoder's size, not the input's, is what finds small, fast people.
 *
 * At a 384x216 input with a 256 px encoder (0.67): portrait-pan 0.952 / 4.6, rollerblade 0.616,
 * swing 0.750, at about the cost of 640x360 at 0.4 (the guided filter works on fewer pixels). That
 * was `light` until the composite of a person turning (bench/matting/composites.ts) found it at
 * 0.813: at 256 px the encoder took the background's fine filaments beside the hair for hair and
 * kept them after the turn. `light`'s sizes measured again (28 November 2026, Intel Xeon with VNNI;
 * bench:matting's quality section, IoU at 0.5; ms: one run of both stages in int8, one after the
 * other on one thread each, interleaved, the range of 2-6 sets on a shared machine):
 *
 * | input / encoder | turning | approach | out-of-frame | two-people | portrait-pan | rollerblade / swing / breakdance | ms |
 * |---|---|---|---|---|---|---|---|
 * | 384 / 256 (0.67) | 0.813 | 0.931 | 0.949 | 0.948 | 0.953 | 0.616 / 0.745 / 0.814 | 31-38 |
 * | 320 / 256 (0.8) | 0.814 | 0.929 | 0.953 | 0.949 | 0.942 | | |
 * | 288 / 288 (1) | 0.895 | 0.949 | 0.962 | 0.957 | 0.951 | 0.699 / 0.757 / 0.831 | 28-33 |
 * | 352 / 288 (0.82) | 0.919 | 0.958 | 0.968 | 0.967 | 0.951 | | 38-42 |
 * | 320 / 320 (1) | 0.934 | 0.956 | 0.970 | 0.964 | 0.958 | 0.697 / 0.771 / 0.858 | 29-33 |
 * | 384 / 320 (0.83) | 0.946 | 0.961 | 0.977 | 0.970 | 0.960 | | 46-56 |
 *
 * The encoder's size decides it again, and at ratio 1 RVM skips its guided filter, so 320 / 320
 * costs no more than 384 / 256 did: `light` runs it, with a margin over the floor that 288 px
 * lacks (0.895 on the turn). Its matte is 320 px wide, scaled up to the video like every matte.
 *
 * Below ~320 px the encoder loses people that are small in the frame (rollerblade, swing). 0.7 keeps
 * portrait-pan at 0.9726 like 0.75 for 13% less CPU (ms: CPU per run on one thread, ORT 1.30, AMD
 * EPYC), but the people floor (mean >= 0.85 on rollerblade, swing and breakdance-flare) holds only at
 * 0.75 (0.853 against 0.849), and a quality floor is not traded for speed. The people of every
 * model now take the encoder at the model input's full size (ratio 1 at 640 px, no guided filter):
 * +0.018 on the people mean and less flicker for 20% more CPU, since the product's weakness is
 * mattes on unseen real footage, not speed. `human` runs it in int8 (human-model.ts: 15% less CPU
 * end to end, people mean 0.867 against 0.871); `original` and `pro` run it in int8
 * too, on each frame and its mirror image (people-rvm.ts). A smaller model input with the same
 * encoder saves little (512x288 at 448 px: 76 ms, 0.972): the cost is the decoder at the encoder's
 * size (its last two blocks are ~45% of a run), not the guided filter.
 */
export const RVM_PROFILES = {
  /** the people of `human` (in int8), `original` and `pro`: quality first, the encoder at the input's full size */
  human: { inputLongSide: 640, encoderLongSide: 640 },
  /** `light`: speed first, IoU >= 0.85 on the portrait clips */
  light: { inputLongSide: 320, encoderLongSide: 320 },
} as const;

/** a model input's long side and the encoder's */
export type RvmProfile = (typeof RVM_PROFILES)[keyof typeof RVM_PROFILES];

/**
 * The model input: the video's aspect ratio, long side at most `longSide`, even sizes, never larger
 * than the video. A frame wider (or taller) than 16:9 keeps the pixels of a 16:9 frame at that long
 * side: by its long side alone a cinema-wide frame (2.39:1) would draw a standing person a quarter
 * smaller than a 16:9 frame does. Measured on the composites cropped to 640x268, `light` at 320x134
 * -> 370x156 (its cost at 16:9): turning 0.797 -> 0.917, portrait-pan 0.934 -> 0.960, two-people
 * 0.945 -> 0.960 (0.941 / 0.965 / 0.970 with a 180 px short side, a third more pixels).
 */
export function rvmInputSize(width: number, height: number, longSide = 640): { width: number; height: number } {
  const byLongSide = longSide / Math.max(width, height);
  const bySixteenByNine = Math.sqrt((longSide * longSide * 9) / 16 / (width * height));
  const scale = Math.min(1, Math.max(byLongSide, bySixteenByNine));
  return { width: evenSide(width * scale), height: evenSide(height * scale) };
}

/** the geometry of a profile for a video of `width` x `height`: the encoder sized by the same rule as the input */
export function rvmGeometryFor(width: number, height: number, profile: { inputLongSide: number; encoderLongSide: number }): RvmGeometry {
  const input = rvmInputSize(width, height, profile.inputLongSide);
  const encoder = rvmInputSize(width, height, profile.encoderLongSide);
  const ratio = Math.min(1, Math.round((Math.max(encoder.width, encoder.height) / Math.max(input.width, input.height)) * 100) / 100);
  return { ...input, ratio };
}

/** a profile's geometry for a video, pipelined in the precision and stages of this CPU's int8 `arithmetic` (pipelinedAt) */
export function pipelinedGeometryFor(width: number, height: number, profile: RvmProfile, arithmetic?: Int8Arithmetic): RvmGeometry {
  return { ...rvmGeometryFor(width, height, profile), ...pipelinedAt(arithmetic) };
}
