import { cutByEdge, lostAtEdge } from '../../../src/engine/models/original/lost-at-edge';
import { Box } from '../../../src/engine/models/pro/boxes';

/** When `original` keeps the moved matte on a keyframe instead of ISNet's plane, on synthetic planes. */
const W = 160;
const H = 90;

const box = (x0: number, y0: number, x1: number, y1: number): Box => ({ x0, y0, x1, y1 });

/** 1 over `rect`, keeping the first `share` of its rows */
function plane(rect?: Box, share = 1): Float32Array {
  const out = new Float32Array(W * H);
  if (!rect) return out;
  const [y0, y1] = [Math.floor(rect.y0 * H), Math.ceil(rect.y1 * H)];
  const last = y0 + Math.round((y1 - y0) * share);
  for (let y = y0; y < last; y++) for (let x = Math.floor(rect.x0 * W); x < Math.ceil(rect.x1 * W); x++) out[y * W + x] = 1;
  return out;
}

describe('original: an object lost at the frame edge', () => {
  const leaving = box(0.8, 0.5, 1, 0.75);
  const inside = box(0.3, 0.3, 0.6, 0.7);

  it('a box touching any side is cut by the edge; one just inside every side is not', () => {
    expect([box(0, 0.2, 0.3, 0.5), box(0.2, 0, 0.3, 0.5), box(0.5, 0.2, 1, 0.5), box(0.2, 0.5, 0.3, 1)].map(cutByEdge)).toEqual([true, true, true, true]);
    expect(cutByEdge(box(0.02, 0.02, 0.98, 0.98))).toBe(false);
  });

  it('an empty ISNet plane where the moved matte keeps an object cut by the edge is lost', () => {
    expect(lostAtEdge({ width: W, height: H, fresh: plane(), moved: plane(leaving) }, [leaving])).toBe(true);
  });

  it('below a quarter of the moved pixels kept is lost, a quarter or more is not', () => {
    expect(lostAtEdge({ width: W, height: H, fresh: plane(leaving, 0.2), moved: plane(leaving) }, [leaving])).toBe(true);
    expect(lostAtEdge({ width: W, height: H, fresh: plane(leaving, 0.3), moved: plane(leaving) }, [leaving])).toBe(false);
  });

  it('an object inside the frame is left to ISNet, even when its plane drops it (it may be hidden)', () => {
    expect(lostAtEdge({ width: W, height: H, fresh: plane(), moved: plane(inside) }, [inside])).toBe(false);
  });

  it('nothing to lose: no objects, or a moved matte empty in their boxes', () => {
    expect(lostAtEdge({ width: W, height: H, fresh: plane(), moved: plane(leaving) }, [])).toBe(false);
    expect(lostAtEdge({ width: W, height: H, fresh: plane(), moved: plane(inside) }, [leaving])).toBe(false);
  });
});
