/**
 * Whether the people RVM sees jumped between two frames in a row: much of where they stand now is
 * away from where anyone stood the frame before. A hard cut that the cut detector misses (two
 * shots of one room, where the luma histogram barely moves) or a jump cut moves them at once, and
 * the people chosen on the last keyframe no longer hold: the sessions then find the people afresh,
 * as after a cut, without resetting RVM's state (MainSubjectFinder.newShot; `pro` makes the frame
 * one of its detector's keyframes).
 *
 * "Away" is outside the cells (a 40th of the frame's width) that held people the frame before and
 * their neighbours, so that fast limbs do not count: on DAVIS breakdance-flare at most 29% of the
 * dancer is away from the frame before, while their overlap (IoU) falls to 0.27 on 18 frames.
 */

/** read once: a global looked up in a per-pixel loop is slow under Jest (docs/testing.md) */
const { ceil, floor, max, min } = Math;

/** at least this share of the people now (at 0.5) is away from the people before */
const AWAY_SHARE = 0.4;
/** the two frames' people cover at least this share of the frame together (a speck says nothing) */
const MIN_COVER = 0.01;
const CELLS_ACROSS = 40;
/** every 2nd pixel of every 2nd row: people many pixels across decide alike */
const STEP = 2;

export function peopleJumped(before: Float32Array, now: Float32Array, width: number, height: number): boolean {
  const cell = ceil(width / CELLS_ACROSS);
  const across = ceil(width / cell);
  const near = nearPeople(before, width, height, cell, across);
  let peopleNow = 0;
  let away = 0;
  let either = 0;
  let sampled = 0;
  for (let y = 0; y < height; y += STEP) {
    const row = floor(y / cell) * across;
    for (let x = 0; x < width; x += STEP) {
      const i = y * width + x;
      const is = now[i] >= 0.5;
      if (is) {
        peopleNow++;
        if (!near[row + floor(x / cell)]) away++;
      }
      if (is || before[i] >= 0.5) either++;
      sampled++;
    }
  }
  return either >= MIN_COVER * sampled && away >= AWAY_SHARE * peopleNow;
}

/** `peopleJumped` frame after frame: keeps the people of the frame before, where they were read */
export class PeopleJumps {
  private before?: Float32Array;

  /** whether the people `now` jumped from the frame before's (both read); `now` (undefined: not read) is then the frame before */
  jumpedTo(now: Float32Array | undefined, width: number, height: number): boolean {
    const before = this.before;
    this.before = now;
    return now !== undefined && before !== undefined && peopleJumped(before, now, width, height);
  }

  /** a blank frame: no people before the next */
  forget(): void {
    this.before = undefined;
  }
}

/** the cells (`cell` pixels square, `across` in a row) that hold people in `plane` (at 0.5), and their 8 neighbours */
function nearPeople(plane: Float32Array, width: number, height: number, cell: number, across: number): Uint8Array {
  const down = ceil(height / cell);
  const held = new Uint8Array(across * down);
  for (let y = 0; y < height; y += STEP) {
    for (let x = 0; x < width; x += STEP) if (plane[y * width + x] >= 0.5) held[floor(y / cell) * across + floor(x / cell)] = 1;
  }
  const near = new Uint8Array(held.length);
  for (let cy = 0; cy < down; cy++) {
    for (let cx = 0; cx < across; cx++) {
      if (!held[cy * across + cx]) continue;
      for (let ny = max(0, cy - 1); ny <= min(down - 1, cy + 1); ny++) near.fill(1, ny * across + max(0, cx - 1), ny * across + min(across, cx + 2));
    }
  }
  return near;
}
