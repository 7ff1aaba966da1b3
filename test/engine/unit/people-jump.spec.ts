import { PeopleJumps, peopleJumped } from '../../../src/engine/models/rvm/people-jump';

// 160 px across: the cells are 4 px square
const WIDTH = 160;
const HEIGHT = 90;

/** a plane with people (alpha 1) in the given column ranges (exclusive ends), rows 20 to 90 */
function peopleAt(...columns: [number, number][]): Float32Array {
  const plane = new Float32Array(WIDTH * HEIGHT);
  for (let y = 20; y < HEIGHT; y++) for (const [x0, x1] of columns) plane.fill(1, y * WIDTH + x0, y * WIDTH + x1);
  return plane;
}

describe('peopleJumped: much of where the people stand is away from where anyone stood the frame before', () => {
  it('is true when the person is elsewhere at once (a cut within one room), false when they moved a little', () => {
    expect(peopleJumped(peopleAt([60, 90]), peopleAt([10, 40]), WIDTH, HEIGHT)).toBe(true);
    expect(peopleJumped(peopleAt([60, 90]), peopleAt([66, 96]), WIDTH, HEIGHT)).toBe(false);
  });

  it('does not count what stays next to the people before (fast limbs), however little the two overlap', () => {
    // a thin person moved by its own width: no overlap, but every pixel in the cells next to the old ones
    expect(peopleJumped(peopleAt([60, 64]), peopleAt([64, 68]), WIDTH, HEIGHT)).toBe(false);
  });

  it('draws the line at 40% of the people now being away', () => {
    // the person stays (15 samples a row); someone new far off with 5 samples a row is 25% of them, with 10 it is 40%
    expect(peopleJumped(peopleAt([60, 90]), peopleAt([60, 90], [0, 10]), WIDTH, HEIGHT)).toBe(false);
    expect(peopleJumped(peopleAt([60, 90]), peopleAt([60, 90], [0, 20]), WIDTH, HEIGHT)).toBe(true);
  });

  it('is false where the people cover under 1% of the frame together (a speck that comes and goes)', () => {
    const speck = (x: number) => {
      const plane = new Float32Array(WIDTH * HEIGHT);
      for (let y = 40; y < 46; y++) plane.fill(1, y * WIDTH + x, y * WIDTH + x + 6);
      return plane;
    };
    expect(peopleJumped(speck(20), speck(100), WIDTH, HEIGHT)).toBe(false);
    expect(peopleJumped(new Float32Array(WIDTH * HEIGHT), new Float32Array(WIDTH * HEIGHT), WIDTH, HEIGHT)).toBe(false);
  });
});

describe('PeopleJumps: each frame against the frame before', () => {
  it('sees a jump from the frame before only, and none across a frame whose people were not read or a blank frame', () => {
    const jumps = new PeopleJumps();
    const left = peopleAt([10, 40]);
    const right = peopleAt([60, 90]);
    expect(jumps.jumpedTo(left, WIDTH, HEIGHT)).toBe(false); // nothing before
    expect(jumps.jumpedTo(right, WIDTH, HEIGHT)).toBe(true);
    expect(jumps.jumpedTo(right, WIDTH, HEIGHT)).toBe(false); // against the jumped frame, not the first
    expect(jumps.jumpedTo(undefined, WIDTH, HEIGHT)).toBe(false);
    expect(jumps.jumpedTo(left, WIDTH, HEIGHT)).toBe(false); // the frame before was not read
    jumps.forget();
    expect(jumps.jumpedTo(right, WIDTH, HEIGHT)).toBe(false);
  });
});
