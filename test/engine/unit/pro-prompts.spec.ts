import { withoutTheirColours } from '../../../src/engine/models/pro/colour-apart';
import { COLOUR_NAMES, labToRgb, nameRgb, rgbToLab } from '../../../src/engine/models/pro/colour-names';
import { parsePrompt, SubjectQuery } from '../../../src/engine/models/pro/prompt-grammar';
import { resolveQueries } from '../../../src/engine/models/pro/prompt-resolver';
import { colourShare, EvidenceBook, TrackEvidence } from '../../../src/engine/models/pro/track-evidence';
import { classIndex } from '../../../src/engine/models/pro/vocabulary';

const query = (q: Partial<SubjectQuery> & Pick<SubjectQuery, 'cls'>): SubjectQuery => ({ many: false, colours: [], ...q });

describe('pro prompt grammar', () => {
  it.each<[string, SubjectQuery[]]>([
    ['person wearing red jacket', [query({ cls: 'person', colours: [{ colour: 'red', garment: 'upper' }] })]],
    ['the woman in blue', [query({ cls: 'person', colours: [{ colour: 'blue' }] })]],
    ['white car', [query({ cls: 'car', colours: [{ colour: 'white' }] })]],
    ['black dog', [query({ cls: 'dog', colours: [{ colour: 'black' }] })]],
    ['the man on the left', [query({ cls: 'person', position: 'left' })]],
    ['dog in the middle', [query({ cls: 'dog', position: 'middle' })]],
    ['the person in front', [query({ cls: 'person', position: 'front' })]],
    ['biggest dog', [query({ cls: 'dog', size: 'largest' })]],
    ['the smallest car', [query({ cls: 'car', size: 'smallest' })]],
    ['two people', [query({ cls: 'person', many: true, count: 2 })]],
    ['the two people on the right', [query({ cls: 'person', many: true, count: 2, position: 'right' })]],
    ['person and dog', [query({ cls: 'person' }), query({ cls: 'dog' })]],
    ['the man and his bike', [query({ cls: 'person' }), query({ cls: 'bicycle' })]],
    ['the woman in a red shirt and blue jeans', [query({ cls: 'person', colours: [{ colour: 'red', garment: 'upper' }, { colour: 'blue', garment: 'lower' }] })]],
    ['people in grey', [query({ cls: 'person', many: true, colours: [{ colour: 'grey' }] })]],
  ])('%s', (prompt, queries) => {
    const parsed = parsePrompt(prompt);
    expect(parsed.queries).toEqual(queries);
    expect(parsed.unknownWords).toEqual([]);
  });

  it('reports words that are neither subjects nor attributes, and colours with no subject', () => {
    expect(parsePrompt('the shiny red car, a unicorn')).toMatchObject({ subjects: ['car'], unknownWords: ['shiny', 'unicorn'] });
    expect(parsePrompt('red, sky')).toMatchObject({ subjects: [], unknownWords: ['red', 'sky'] });
  });

  it('takes a count of 1 to 100 and reports any other as an unknown word ("0 people" kept none: a clip all transparent)', () => {
    expect(parsePrompt('3 people').queries).toEqual([query({ cls: 'person', many: true, count: 3 })]);
    for (const count of ['0', '101', '99999999999999999999999']) {
      const parsed = parsePrompt(`${count} people`);
      expect(parsed.queries).toEqual([query({ cls: 'person', many: true })]);
      expect(parsed.unknownWords).toEqual([count]);
    }
  });

  it('folds accents and compatibility forms, and reports words of other scripts rather than dropping them ("café" came out "caf", "人" vanished)', () => {
    expect(parsePrompt('ｐｅｒｓｏｎ').queries).toEqual([query({ cls: 'person' })]);
    expect(parsePrompt('Pérson').queries).toEqual([query({ cls: 'person' })]);
    expect(parsePrompt('人 personne café ñ')).toMatchObject({ subjects: [], unknownWords: ['人', 'personne', 'cafe', 'n'] });
  });
});

describe('CIELAB colour names', () => {
  it.each([
    [[255, 0, 0], 'red'],
    [[200, 30, 30], 'red'],
    [[255, 140, 0], 'orange'],
    [[255, 230, 0], 'yellow'],
    [[0, 160, 0], 'green'],
    [[0, 0, 255], 'blue'],
    [[30, 60, 160], 'blue'],
    [[128, 0, 160], 'purple'],
    [[255, 160, 200], 'pink'],
    [[110, 70, 30], 'brown'],
    [[15, 15, 18], 'black'],
    [[128, 128, 128], 'grey'],
    [[245, 245, 245], 'white'],
  ] as [number[], string][])('%j is %s', ([r, g, b], name) => {
    expect(nameRgb(r, g, b)).toBe(name);
  });

  it('Lab round-trips sRGB', () => {
    for (const rgb of [[12, 200, 90], [255, 255, 255], [0, 0, 0], [90, 40, 220]]) expect(labToRgb(rgbToLab(rgb[0], rgb[1], rgb[2]))).toEqual(rgb);
  });
});

function evidence(cls: string, frames: number, centre: number, area: number, upper: Partial<Record<string, number>> = {}, [firstFrame, lastFrame] = [0, 100]): TrackEvidence {
  const shares = () => new Float64Array(COLOUR_NAMES.length);
  const e: TrackEvidence = { trackId: 0, firstFrame, lastFrame, cls: classIndex(cls as 'person'), frames, centreXSum: centre * frames, areaSum: area * frames, colourShares: { upper: shares(), lower: shares(), whole: shares() }, colourFrames: { upper: frames, lower: 0, whole: frames } };
  for (const [name, share] of Object.entries(upper)) {
    e.colourShares.upper[COLOUR_NAMES.indexOf(name as 'red')] = share! * frames;
    e.colourShares.whole[COLOUR_NAMES.indexOf(name as 'red')] = share! * frames;
  }
  return e;
}

describe('prompt resolver', () => {
  const clip = new Map<number, TrackEvidence>([
    [1, evidence('person', 25, 0.3, 0.1, { red: 0.5, yellow: 0.3 })],
    [2, evidence('person', 24, 0.7, 0.12, { blue: 0.45, yellow: 0.3 })],
    [3, evidence('person', 1, 0.5, 0.2, { red: 0.9 })],
    [4, evidence('dog', 20, 0.5, 0.05)],
  ]);
  const keep = (prompt: string) => [...resolveQueries(parsePrompt(prompt).queries, clip).kept].sort();

  it('keeps the track whose own pixels carry the colour, ignoring a flicker of the detector', () => {
    expect(keep('person wearing red jacket')).toEqual([1]);
    expect(keep('the woman in blue')).toEqual([2]);
  });

  it('ranks by position and size, and keeps as many as the count says', () => {
    expect(keep('the person on the left')).toEqual([1]);
    expect(keep('the person on the right')).toEqual([2]);
    expect(keep('biggest person')).toEqual([2]);
    expect(keep('two people')).toEqual([1, 2]);
  });

  it('one subject seen as two segments (its track crossed another) is kept whole, never two at once', () => {
    const crossing = new Map<number, TrackEvidence>([
      [1, evidence('person', 8, 0.3, 0.1, { red: 0.5 }, [0, 30])],
      [2, evidence('person', 8, 0.7, 0.1, { blue: 0.5 }, [0, 30])],
      [3, evidence('person', 6, 0.3, 0.1, { blue: 0.5 }, [40, 59])],
      [4, evidence('person', 6, 0.7, 0.1, { red: 0.5 }, [40, 59])],
    ]);
    expect([...resolveQueries(parsePrompt('person wearing red jacket').queries, crossing).kept].sort()).toEqual([1, 4]);
    expect([...resolveQueries(parsePrompt('the person on the left').queries, crossing).kept].sort()).toEqual([1, 3]);
  });

  it('a colour nobody wears keeps the closest match and says so', () => {
    const { kept, notes } = resolveQueries(parsePrompt('person in green').queries, clip);
    expect(kept.size).toBe(1);
    expect(notes.join(' ')).toMatch(/no person had that colour/);
  });

  it('a class named without attributes keeps all its tracks', () => {
    const resolution = resolveQueries(parsePrompt('the person in red and the dog').queries, clip);
    expect([...resolution.kept]).toEqual([1]);
    expect([...resolution.wholeClasses]).toEqual([classIndex('dog')]);
  });
});

describe('track evidence', () => {
  const SIZE = 40;
  /** a frame whose left half is red and right half blue, and a matte filling a box */
  const rgb = new Uint8Array(SIZE * SIZE * 3).map((_, i) => {
    const x = Math.floor(i / 3) % SIZE;
    const c = i % 3;
    return x < SIZE / 2 ? [200, 30, 30][c] : [30, 60, 200][c];
  });
  const matteOf = (x0: number, x1: number) => Float32Array.from({ length: SIZE * SIZE }, (_, i) => (i % SIZE >= x0 * SIZE && i % SIZE < x1 * SIZE ? 1 : 0));
  const at = (id: number, x0: number, x1: number, detected = true) => ({ id, cls: 1, box: { x0, y0: 0, x1, y1: 1 }, detected, matte: matteOf(x0, x1) });

  it('judges a track on its own matte, and splits it where it is lost in a crowd', () => {
    const book = new EvidenceBook(0, 1);
    book.observe(0, rgb, SIZE, SIZE, [at(1, 0.1, 0.4), at(2, 0.6, 0.9)]);
    book.observe(4, rgb, SIZE, SIZE, [at(1, 0.1, 0.4), at(2, 0.6, 0.9)]);
    book.observe(8, rgb, SIZE, SIZE, [at(1, 0.3, 0.6), at(2, 0.4, 0.7, false)]); // 2 is lost behind 1
    book.observe(12, rgb, SIZE, SIZE, [at(1, 0.6, 0.9), at(3, 0.1, 0.4)]); // 3 comes out
    const segments = [...book.entries.values()];
    expect(segments.map((s) => [s.trackId, s.firstFrame, s.lastFrame, s.frames])).toEqual([
      [1, 0, 8, 2],
      [2, 0, 4, 2],
      [1, 12, 12, 1],
      [3, 12, 12, 1],
    ]);
    expect(colourShare(segments[0], 'whole', COLOUR_NAMES.indexOf('red'))).toBe(1);
    expect(colourShare(segments[1], 'whole', COLOUR_NAMES.indexOf('blue'))).toBe(1);
    expect(book.frameSpan(2, 4)).toEqual({ trackId: 2, from: 0, to: 7 });
    expect(book.frameSpan(1, 4)).toEqual({ trackId: 1, from: 0, to: 11 });
  });
});

describe('a kept subject apart from a left-out one by colour (colour-apart)', () => {
  // two people side by side on a 100x60 plane, both in the kept matte (RVM holds everyone): the
  // kept one in a red jacket, the left-out one in a blue jacket, both with the same blond hair (a
  // band at the top, thinner than the vote's radius: 6 px here)
  const W = 100;
  const H = 60;
  const RED = [200, 30, 30];
  const BLUE = [30, 40, 200];
  const HAIR = [210, 180, 120];
  const shares = (name: string) => Float64Array.from(COLOUR_NAMES, (c) => (c === name ? 0.6 : c === nameRgb(HAIR[0], HAIR[1], HAIR[2]) ? 0.4 : 0));

  function scene(): { rgb: Uint8Array; matte: Float32Array } {
    const rgb = new Uint8Array(W * H * 3);
    const matte = new Float32Array(W * H);
    for (let y = 0; y < H; y++) {
      for (let x = 20; x < 80; x++) {
        const p = y * W + x;
        matte[p] = 1;
        rgb.set(y < 4 ? HAIR : x < 50 ? RED : BLUE, 3 * p);
      }
    }
    return { rgb, matte };
  }
  const at = (matte: Float32Array, x: number, y: number) => matte[y * W + x];

  it("drops the left-out one's jacket, and the shared hair above it; keeps the kept one's hair", () => {
    const { rgb, matte } = scene();
    withoutTheirColours(matte, rgb, W, H, { own: shares('red'), others: [shares('blue')] });
    expect(at(matte, 70, 40)).toBe(0); // the blue jacket
    expect(at(matte, 70, 2)).toBe(0); // hair over the blue jacket
    expect(at(matte, 30, 2)).toBe(1); // hair over the red jacket
    expect(at(matte, 30, 40)).toBe(1); // the red jacket
  });

  it('keeps a shared colour that its own colours surround, beside a patch of theirs', () => {
    const { rgb, matte } = scene();
    // the kept one alone (red from x 20 to 80) but for a small blue badge beside its hair
    for (let y = 4; y < H; y++) for (let x = 50; x < 80; x++) rgb.set(RED, 3 * (y * W + x));
    for (let y = 4; y < 7; y++) for (let x = 60; x < 64; x++) rgb.set(BLUE, 3 * (y * W + x));
    withoutTheirColours(matte, rgb, W, H, { own: shares('red'), others: [shares('blue')] });
    expect(at(matte, 61, 5)).toBe(0); // the badge: clearly their colour
    expect(at(matte, 61, 2)).toBe(1); // the hair above it: red all around, 12 blue pixels
  });
});
