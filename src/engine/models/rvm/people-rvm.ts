import { Int8Arithmetic, int8Arithmetic } from '../runtime/cpu-features';
import { RvmMatter } from './rvm-matter';
import { RvmGeometry } from './rvm-model-file';
import { pipelinedGeometryFor, RVM_PROFILES } from './rvm-geometry';
import { RvmSession } from './rvm-session';

/**
 * RVM for the people of `original` and `pro`, the models that put quality before speed: `human`'s
 * geometry and precision (pipelinedAt), and where the CPU has VNNI the mirrored frame matted beside
 * each frame (RvmSessionOptions.mirrored). Measured through `original` against RVM in fp32 alone (AMD
 * EPYC with VNNI; IoU at 0.5): DAVIS rollerblade 0.878 -> 0.887, swing 0.824 -> 0.831,
 * breakdance-flare 0.913 -> 0.915, bmx-trees 0.539 -> 0.557, kite-walk 0.601 -> 0.597; the
 * out-of-frame composite 0.930 -> 0.971, two-people 0.985 -> 0.987; portrait-pan 0.9765 -> 0.9785
 * (dtSSD lower on all but breakdance-flare), for 25-35% more CPU a frame. Without VNNI the pair would
 * cost twice one pass (which takes two to three times as long there, in int8 on AVX2 or in fp32), so
 * it is not run: `original`'s speed against the peer library is a goal too. `human` takes a smaller
 * mirrored pass instead (human-model.ts): its goals are speed goals (the same mirroring took its
 * DAVIS people mean from 0.870 to 0.877 at twice RVM's cost). Pipelined as `human`'s
 * (human-model.ts): the two streams' frames go through the encoder and decoder threads by turns;
 * with `original`'s frames in flight, 224-239 -> 190-206 ms a frame on portrait-pan, end to end at
 * 640x360 3.8 -> 4.7 fps (interleaved, a loaded day), the same mattes;
 * without VNNI in three stages, as `human`'s (rvmStages).
 * `mirroredWhereDotProduct: false` keeps one pass (`pro`'s survey, whose mattes are not shown: pro-model.ts).
 */
export async function openPeopleRvm(
  open: (geometry: RvmGeometry) => Promise<RvmMatter>,
  width: number,
  height: number,
  { arithmetic = int8Arithmetic(), mirroredWhereDotProduct = true }: { arithmetic?: Int8Arithmetic; mirroredWhereDotProduct?: boolean } = {},
): Promise<RvmSession> {
  const matter = await open(pipelinedGeometryFor(width, height, RVM_PROFILES.human, arithmetic));
  return new RvmSession(matter, { mirrored: mirroredWhereDotProduct && arithmetic === 'dot-product' });
}
