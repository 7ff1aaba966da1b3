import { Box } from '../pro/boxes';
import { boxCover } from '../pro/region-gate';

/** a box within this share of the frame's side touches the edge: its object is partly out of frame */
const EDGE = 0.01;
/** ISNet's plane has lost an object when it keeps less than this share of the moved matte's pixels in its box */
const KEPT_SHARE = 0.25;

export const cutByEdge = (box: Box): boolean => box.x0 <= EDGE || box.y0 <= EDGE || box.x1 >= 1 - EDGE || box.y1 >= 1 - EDGE;

export interface KeyframePlanes {
  width: number;
  height: number;
  /** ISNet's plane of the keyframe */
  fresh: Float32Array;
  /** the last keyframe's matte moved to this frame */
  moved: Float32Array;
}

/**
 * Whether ISNet's plane of a keyframe lost a tracked object that the frame's edge cuts: inside the
 * boxes of such objects it keeps less than a quarter of what the moved matte keeps. A salient-object
 * model loses interest in an object leaving the frame while the detector still finds it (car-slide's
 * car as it drives out: ISNet's plane of frames 98-99 is empty, on the whole frame and on a crop
 * alike), and a blend with an empty plane empties the matte. Objects inside the frame are left to
 * ISNet: one that it drops there is more often hidden (DAVIS bmx-trees: the bike behind the trees,
 * where keeping the moved matte cost 0.002 of the clip's IoU).
 */
export function lostAtEdge(planes: KeyframePlanes, objects: readonly Box[]): boolean {
  const cut = objects.filter(cutByEdge);
  if (cut.length === 0) return false;
  const inside = boxCover(cut, planes.width, planes.height);
  let [kept, before] = [0, 0];
  for (let i = 0; i < inside.length; i++) {
    if (!inside[i]) continue;
    if (planes.fresh[i] >= 0.5) kept++;
    if (planes.moved[i] >= 0.5) before++;
  }
  return before > 0 && kept < KEPT_SHARE * before;
}
