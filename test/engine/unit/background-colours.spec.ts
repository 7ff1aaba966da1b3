import { BackgroundColours } from '../../../src/engine/models/image/background-colours';

/**
 * A 200x100 frame: green background on the left half, grey on the right; a subject (skin colour,
 * alpha 1) in x 80-120 from y 20 down; and a blob at its right edge (x 120-130, y 40-60), alpha 1,
 * of `blobColour`, which the second opinion firmly called background where `suspect`.
 */
const WIDTH = 200;
const HEIGHT = 100;
const GREEN = [40, 200, 40];
const GREY = [128, 128, 128];
const SKIN = [200, 160, 120];

interface Region {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

const SUBJECT: Region = { x0: 80, x1: 120, y0: 20, y1: 100 };
const EDGE_BLOB: Region = { x0: 120, x1: 130, y0: 40, y1: 60 };
const NO_BLOB: Region = { x0: 0, x1: 0, y0: 0, y1: 0 };

function frame(blob: Region, blobColour: number[], options: { suspect?: boolean; subjectTop?: number[] } = {}) {
  const rgb = new Uint8Array(WIDTH * HEIGHT * 3);
  const alpha = new Float32Array(WIDTH * HEIGHT);
  const suspects: number[] = [];
  const inside = (r: Region, x: number, y: number) => x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1;
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const p = y * WIDTH + x;
      let colour = x < WIDTH / 2 ? GREEN : GREY;
      if (inside(SUBJECT, x, y)) {
        colour = options.subjectTop && y < 40 ? options.subjectTop : SKIN;
        alpha[p] = 1;
      }
      if (inside(blob, x, y)) {
        colour = blobColour;
        alpha[p] = 1;
        if (options.suspect !== false) suspects.push(p);
      }
      rgb.set(colour, p * 3);
    }
  }
  return { rgb, alpha, suspects };
}

const blobPixels = (alpha: Float32Array, blob: Region) => {
  const values: number[] = [];
  for (let y = blob.y0; y < blob.y1; y++) for (let x = blob.x0; x < blob.x1; x++) values.push(alpha[y * WIDTH + x]);
  return values;
};

function dropped(f: ReturnType<typeof frame>, colours = new BackgroundColours()) {
  const before = Float32Array.from(f.alpha);
  colours.drop(f.alpha, f.rgb, WIDTH, HEIGHT, f.suspects);
  return { after: f.alpha, before };
}

describe('blobs of a matte that colour and a second opinion call background', () => {
  it('drops a suspect blob at the subject’s edge whose colour is the background’s, and nothing else', () => {
    const { after, before } = dropped(frame(EDGE_BLOB, GREY));
    expect(blobPixels(after, EDGE_BLOB).every((a) => a === 0)).toBe(true);
    expect(blobPixels(after, SUBJECT)).toEqual(blobPixels(before, SUBJECT));
  });

  it('keeps it where the second opinion did not call it background', () => {
    const { after, before } = dropped(frame(EDGE_BLOB, GREY, { suspect: false }));
    expect(after).toEqual(before);
  });

  it('keeps a suspect blob of the subject’s own colours', () => {
    const { after, before } = dropped(frame(EDGE_BLOB, SKIN));
    expect(after).toEqual(before);
  });

  it('keeps a suspect blob inside the subject, touching no background', () => {
    const hole = { x0: 95, x1: 105, y0: 50, y1: 70 };
    const { after, before } = dropped(frame(hole, GREY));
    expect(after).toEqual(before);
  });

  it('keeps a blob under a 2000th of the frame (10 pixels here), drops one of that size', () => {
    const speck = { x0: 120, x1: 123, y0: 50, y1: 53 };
    const { after, before } = dropped(frame(speck, GREY));
    expect(after).toEqual(before);
    const ten = { x0: 120, x1: 122, y0: 50, y1: 55 };
    expect(blobPixels(dropped(frame(ten, GREY)).after, ten).every((a) => a === 0)).toBe(true);
  });

  it('remembers the subject’s colours from the frames before (a grey top seen sure), until restarted', () => {
    const colours = new BackgroundColours();
    dropped(frame(NO_BLOB, GREY, { subjectTop: GREY }), colours);
    const remembered = dropped(frame(EDGE_BLOB, GREY), colours);
    expect(remembered.after).toEqual(remembered.before);
    colours.restart();
    expect(blobPixels(dropped(frame(EDGE_BLOB, GREY), colours).after, EDGE_BLOB).every((a) => a === 0)).toBe(true);
  });
});
