import { FIRM_BACKGROUND, meanWithMirrored, mirrorRows, trimWithMirrored } from '../../../src/engine/models/image/mirror';
import { resizePlane } from '../../../src/engine/models/image/resample';

describe('mirroring packed images left to right', () => {
  it('reverses each row pixel by pixel and keeps the channels of a pixel in order', () => {
    // 3x2 RGB: pixel (x, y) holds [10x + y, 100, 200 + x]
    const rgb = Uint8Array.from([0, 100, 200, 10, 100, 201, 20, 100, 202, 1, 100, 200, 11, 100, 201, 21, 100, 202]);
    expect([...mirrorRows(rgb, 3, 2, 3)]).toEqual([20, 100, 202, 10, 100, 201, 0, 100, 200, 21, 100, 202, 11, 100, 201, 1, 100, 200]);
  });

  it('gives back the image when applied twice, on a plane of floats too', () => {
    const plane = Float32Array.from({ length: 5 * 3 }, (_, i) => i / 7);
    const once = mirrorRows(plane, 5, 3, 1);
    expect(once).toBeInstanceOf(Float32Array);
    expect([...once.slice(0, 5)]).toEqual([4, 3, 2, 1, 0].map((i) => Math.fround(i / 7)));
    expect(mirrorRows(once, 5, 3, 1)).toEqual(plane);
  });

  it('takes a Buffer, as frames arrive, and gives a plain Uint8Array (Buffer(length), deprecated, is never called)', () => {
    const mirrored = mirrorRows(Buffer.from([1, 2, 3, 4, 5, 6]), 2, 1, 3);
    expect([...mirrored]).toEqual([4, 5, 6, 1, 2, 3]);
    expect(Buffer.isBuffer(mirrored)).toBe(false);
  });

  it('refuses data that is not width x height x channels', () => {
    expect(() => mirrorRows(new Uint8Array(17), 3, 2, 3)).toThrow(RangeError);
  });

  it('averages a prediction with the mirror image of one made on the mirrored image', () => {
    const direct = Float32Array.from([0.2, 0.4, 1, 0]);
    const onMirrored = Float32Array.from([0.6, 0, 1, 1]);
    // onMirrored brought back: [0, 0.6, 1, 1]
    expect([...meanWithMirrored(direct, onMirrored, 2, 2, 1)].map((v) => Number(v.toFixed(6)))).toEqual([0.1, 0.5, 1, 0.5]);
    expect([...onMirrored]).toEqual([0.6, 0, 1, 1].map(Math.fround)); // its input is left as it was
  });

  it('trims a matte only where the second opinion on the mirrored image firmly says background', () => {
    // one row of 6; the second opinion brought back: [0, 0.24, 0.25, 0, 1, 0.1]
    const direct = Float32Array.from([1, 0.5, 0.9, 0.49, 0.2, 0.8]);
    const onMirrored = Float32Array.from([0.1, 1, 0, 0.25, 0.24, 0]);
    const trimmed = [...trimWithMirrored(direct, { width: 6, height: 1, data: onMirrored }, 6, 1, 0.4)].map((v) => Number(v.toFixed(6)));
    expect(trimmed).toEqual([
      0.6, // foreground, the other sure it is background: 0.6 x 1 + 0.4 x 0
      0.396, // at 0.5 still foreground: 0.6 x 0.5 + 0.4 x 0.24
      0.9, // the other at FIRM_BACKGROUND is not sure
      0.49, // background already: never raised, never lowered
      0.2, // the other says foreground: nothing added
      0.52, // 0.6 x 0.8 + 0.4 x 0.1
    ]);
    expect(FIRM_BACKGROUND).toBe(0.25);
    const trimmedAt: number[] = [];
    trimWithMirrored(direct, { width: 6, height: 1, data: onMirrored }, 6, 1, 0.4, trimmedAt);
    expect(trimmedAt).toEqual([0, 1, 5]);
    expect([...onMirrored]).toEqual([0.1, 1, 0, 0.25, 0.24, 0].map(Math.fround));
  });

  it('trims by a smaller second opinion as by that opinion scaled up to the full size first, value for value', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    for (const [[width, height], [smallWidth, smallHeight]] of [[[64, 36], [32, 18]], [[50, 30], [17, 11]], [[9, 5], [9, 5]]]) {
      const direct = Float32Array.from({ length: width * height }, random);
      const small = { width: smallWidth, height: smallHeight, data: Float32Array.from({ length: smallWidth * smallHeight }, () => random() * 0.6) };
      const scaledUp = { width, height, data: resizePlane(small, width, height) };
      const trimmed = trimWithMirrored(direct, small, width, height, 0.4);
      expect(Array.from(trimmed)).toEqual(Array.from(trimWithMirrored(direct, scaledUp, width, height, 0.4)));
      expect(trimmed.some((value, p) => value !== direct[p])).toBe(true);
    }
  });
});
