import { Int8Arithmetic, int8Arithmetic } from '../runtime/cpu-features';
import { RvmMatter } from './rvm-matter';
import { RvmGeometry } from './rvm-model-file';
import { pipelinedGeometryFor, RVM_PROFILES } from './rvm-geometry';
import { RvmSession } from './rvm-session';

/**
 * RVM for the people of `original` and `pro`, the models that put quality before speed: `human`'s
 * geometry and precision (pipelinedAt), and a second opinion made on each frame's mirror image.
 *
 * Where the CPU has VNNI, the mirrored frame is matted beside each frame at the same size and the
 * two are averaged (RvmSessionOptions.mirrored). Measured through `original` against RVM in fp32
 * alone (AMD EPYC with VNNI; IoU at 0.5): DAVIS rollerblade 0.878 -> 0.887, swing 0.824 -> 0.831,
 * breakdance-flare 0.913 -> 0.915, bmx-trees 0.539 -> 0.557, kite-walk 0.601 -> 0.597; the
 * out-of-frame composite 0.930 -> 0.971, two-people 0.985 -> 0.987; portrait-pan 0.9765 -> 0.9785
 * (dtSSD lower on all but breakdance-flare), for 25-35% more CPU a frame. Pipelined as `human`'s
 * (human-model.ts): the two streams' frames go through the encoder and decoder threads by turns;
 * with `original`'s frames in flight, 224-239 -> 190-206 ms a frame on portrait-pan, end to end at
 * 640x360 3.8 -> 4.7 fps (interleaved, a loaded day), the same mattes.
 *
 * Without VNNI the pair would cost twice one pass (which takes two to three times as long there, in
 * int8 on AVX2 or in fp32), and `original`'s speed against the peer library is a goal too. There
 * `light`'s smaller RVM mattes the mirror image and trims the matte where it firmly sees background,
 * as `human` does on every CPU (RvmSessionOptions.smallMirror). Measured through `original` with
 * both kinds of pass forced, on an Intel Xeon with VNNI (IoU at 0.5; one pass -> the small pass ->
 * the pair; single-stream ms a frame at 640x360 about 100 -> 120 -> 180): out-of-frame 0.948 ->
 * 0.972 -> 0.976, turning 0.980 -> 0.983 -> 0.986, approach 0.985 -> 0.986 -> 0.987, portrait-pan
 * 0.977 -> 0.976 -> 0.979, DAVIS rollerblade 0.877 -> 0.880 -> 0.885, swing 0.830 -> 0.829 -> 0.840,
 * breakdance-flare 0.914 -> 0.911 -> 0.917 (docs/engine-measurements.md). The small pass drops the
 * background-coloured blobs too, as `human`'s (background-colours.ts): `original` on an AVX2-only AMD
 * EPYC, out-of-frame 0.962 -> 0.974, DAVIS swing 0.829 -> 0.830.
 *
 * Without VNNI in three stages, as `human`'s (rvmStages). `mirrored: false` keeps one pass (`pro`'s
 * survey, whose mattes are not shown: pro-model.ts).
 */
export async function openPeopleRvm(
  open: (geometry: RvmGeometry) => Promise<RvmMatter>,
  width: number,
  height: number,
  { arithmetic = int8Arithmetic(), mirrored = true }: { arithmetic?: Int8Arithmetic; mirrored?: boolean } = {},
): Promise<RvmSession> {
  const smallPass = mirrored && arithmetic !== 'dot-product';
  // opened together, as `human` opens its two (human-model.ts)
  const [matter, smallMirror] = await Promise.all([
    open(pipelinedGeometryFor(width, height, RVM_PROFILES.human, arithmetic)),
    smallPass ? open(pipelinedGeometryFor(width, height, RVM_PROFILES.light, arithmetic)) : undefined,
  ]);
  return new RvmSession(matter, { mirrored, smallMirror, backgroundColours: true });
}
