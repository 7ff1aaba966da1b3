import { barsHold, pictureForSquareModel, pictureInBars, pictureWithoutBarEdges, withinPicture } from '../../../src/engine/models/image/picture-bars';

const WIDTH = 200;
const HEIGHT = 100;

/** a frame of `bars` grey with a textured picture (a ramp and a square) in `x0..x1` x `y0..y1`, black elsewhere */
function framed(picture: { x0: number; y0: number; x1: number; y1: number }, bars = 0): Uint8Array {
  const rgb = new Uint8Array(WIDTH * HEIGHT * 3).fill(bars);
  for (let y = picture.y0; y < picture.y1; y++) {
    for (let x = picture.x0; x < picture.x1; x++) {
      const inSquare = x > 80 && x < 120 && y > 30 && y < 70;
      rgb.fill(inSquare ? 220 : 40 + x / 2, 3 * (y * WIDTH + x), 3 * (y * WIDTH + x) + 3);
    }
  }
  return rgb;
}

describe('the picture between letterbox or pillarbox bars', () => {
  it('finds the picture between black bars above and below, and at the sides', () => {
    expect(pictureInBars(framed({ x0: 0, y0: 12, x1: WIDTH, y1: 88 }), WIDTH, HEIGHT)).toEqual({ x0: 0, y0: 0.12, x1: 1, y1: 0.88 });
    expect(pictureInBars(framed({ x0: 40, y0: 0, x1: 160, y1: HEIGHT }), WIDTH, HEIGHT)).toEqual({ x0: 0.2, y0: 0, x1: 0.8, y1: 1 });
  });

  it('takes bars encoded near black (studio-range black, decoded as a few levels)', () => {
    expect(pictureInBars(framed({ x0: 40, y0: 0, x1: 160, y1: HEIGHT }, 16), WIDTH, HEIGHT)).toEqual({ x0: 0.2, y0: 0, x1: 0.8, y1: 1 });
  });

  it('finds none in a frame without bars, a frame black throughout, or one whose dark edges are not a centred pair', () => {
    expect(pictureInBars(framed({ x0: 0, y0: 0, x1: WIDTH, y1: HEIGHT }), WIDTH, HEIGHT)).toBeUndefined();
    expect(pictureInBars(new Uint8Array(WIDTH * HEIGHT * 3), WIDTH, HEIGHT)).toBeUndefined();
    // a dark band along the top alone (a night sky), or two of different heights
    expect(pictureInBars(framed({ x0: 0, y0: 20, x1: WIDTH, y1: HEIGHT }), WIDTH, HEIGHT)).toBeUndefined();
    expect(pictureInBars(framed({ x0: 0, y0: 20, x1: WIDTH, y1: 95 }), WIDTH, HEIGHT)).toBeUndefined();
    // edges two lines deep: under the share of the frame worth cropping
    expect(pictureInBars(framed({ x0: 0, y0: 2, x1: WIDTH, y1: 98 }), WIDTH, HEIGHT)).toBeUndefined();
  });

  it('takes dark lines with texture (a dim scene, grain) for picture, not bars', () => {
    const rgb = framed({ x0: 0, y0: 12, x1: WIDTH, y1: 88 });
    for (let y = 0; y < 12; y++) for (let x = 0; x < WIDTH; x += 7) rgb.fill(18, 3 * (y * WIDTH + x), 3 * (y * WIDTH + x) + 3);
    for (let y = 88; y < HEIGHT; y++) for (let x = 0; x < WIDTH; x += 7) rgb.fill(18, 3 * (y * WIDTH + x), 3 * (y * WIDTH + x) + 3);
    expect(pictureInBars(rgb, WIDTH, HEIGHT)).toBeUndefined();
  });

  it("shows ISNet the subjects' region inside the picture, the picture where it has no region", () => {
    const picture = { x0: 0.2, y0: 0, x1: 0.8, y1: 1 };
    expect(withinPicture(undefined, undefined)).toBeUndefined();
    expect(withinPicture(undefined, picture)).toEqual(picture);
    expect(withinPicture({ x0: 0.1, y0: 0.2, x1: 0.5, y1: 0.6 }, undefined)).toEqual({ x0: 0.1, y0: 0.2, x1: 0.5, y1: 0.6 });
    expect(withinPicture({ x0: 0.1, y0: 0.2, x1: 0.5, y1: 0.6 }, picture)).toEqual({ x0: 0.2, y0: 0.2, x1: 0.5, y1: 0.6 });
  });

  it('shows a model that squashes its input to a square the picture alone only where that squashes it no more than the frame', () => {
    const pillarboxed = framed({ x0: 40, y0: 0, x1: 160, y1: HEIGHT });
    expect(pictureForSquareModel(pillarboxed, WIDTH, HEIGHT, WIDTH / HEIGHT)).toEqual({ x0: 0.2, y0: 0, x1: 0.8, y1: 1 });
    // letterboxed: the 200x76 picture alone is wider than the 2:1 frame
    expect(pictureForSquareModel(framed({ x0: 0, y0: 12, x1: WIDTH, y1: 88 }), WIDTH, HEIGHT, WIDTH / HEIGHT)).toBeUndefined();
    // the frame decoded squashed: its aspect is the video's, not the decoded frame's
    expect(pictureForSquareModel(pillarboxed, WIDTH, HEIGHT, 1)).toBeUndefined();
    // an upright 1:2 video (decoded 2:1) with bars above and below a square picture
    expect(pictureForSquareModel(framed({ x0: 0, y0: 25, x1: WIDTH, y1: 75 }), WIDTH, HEIGHT, 0.5)).toEqual({ x0: 0, y0: 0.25, x1: 1, y1: 0.75 });
  });

  it('says whether the bars found on a first frame are still bars on a later one', () => {
    const pillarbox = { left: 40, top: 0, right: 160, bottom: HEIGHT };
    expect(barsHold(framed({ x0: 40, y0: 0, x1: 160, y1: HEIGHT }), WIDTH, HEIGHT, pillarbox)).toBe(true);
    // the video goes on full frame: the sides hold picture
    expect(barsHold(framed({ x0: 0, y0: 0, x1: WIDTH, y1: HEIGHT }), WIDTH, HEIGHT, pillarbox)).toBe(false);
    // picture in one bar only (the right one)
    expect(barsHold(framed({ x0: 40, y0: 0, x1: 190, y1: HEIGHT }), WIDTH, HEIGHT, pillarbox)).toBe(false);
    // a black frame between shots keeps its bars
    expect(barsHold(new Uint8Array(WIDTH * HEIGHT * 3), WIDTH, HEIGHT, pillarbox)).toBe(true);
    const letterbox = { left: 0, top: 12, right: WIDTH, bottom: 88 };
    expect(barsHold(framed({ x0: 0, y0: 12, x1: WIDTH, y1: 88 }), WIDTH, HEIGHT, letterbox)).toBe(true);
    expect(barsHold(framed({ x0: 0, y0: 0, x1: WIDTH, y1: 88 }), WIDTH, HEIGHT, letterbox)).toBe(false);
  });

  it('sees a person before a black backdrop step into the "bars" at once, not once they reach a quarter of the way across', () => {
    const pillarbox = { left: 40, top: 0, right: 160, bottom: HEIGHT };
    const swaying = framed({ x0: 40, y0: 0, x1: 160, y1: HEIGHT });
    // an arm 5 columns into the right bar (the lines a quarter, half and three quarters across are 170, 180 and 190)
    for (let y = 40; y < 50; y++) swaying.fill(200, 3 * (y * WIDTH + 160), 3 * (y * WIDTH + 165));
    expect(barsHold(swaying, WIDTH, HEIGHT, pillarbox)).toBe(false);
    // within the picture's edge lines (1.5% of the side: 3 columns), where the still may have put the edge, the bars hold
    const edge = framed({ x0: 40, y0: 0, x1: 162, y1: HEIGHT });
    expect(barsHold(edge, WIDTH, HEIGHT, pillarbox)).toBe(true);
  });

  it("leaves out the bars' lines a coarser still put inside the picture's edges, up to 1.5% of a side", () => {
    const letterbox = { left: 0, top: 12, right: WIDTH, bottom: 88 };
    expect(pictureWithoutBarEdges(framed({ x0: 0, y0: 12, x1: WIDTH, y1: 88 }), WIDTH, HEIGHT, letterbox)).toEqual(letterbox);
    expect(pictureWithoutBarEdges(framed({ x0: 0, y0: 13, x1: WIDTH, y1: 87 }), WIDTH, HEIGHT, letterbox)).toEqual({ ...letterbox, top: 13, bottom: 87 });
    // two rows at most (1.5% of 100): a dark, flat band inside the picture is not taken for bar
    expect(pictureWithoutBarEdges(framed({ x0: 0, y0: 17, x1: WIDTH, y1: 83 }), WIDTH, HEIGHT, letterbox)).toEqual({ ...letterbox, top: 14, bottom: 86 });
    // pillarbox: the columns (three at most) and not the rows, which have no bars
    const pillarbox = { left: 38, top: 0, right: 162, bottom: HEIGHT };
    const phone = framed({ x0: 40, y0: 0, x1: 160, y1: HEIGHT });
    phone.fill(0, 0, 3 * WIDTH); // a black first row of the picture is picture, not bar
    expect(pictureWithoutBarEdges(phone, WIDTH, HEIGHT, pillarbox)).toEqual({ left: 40, top: 0, right: 160, bottom: HEIGHT });
  });
});
