import { estimateForeground } from '../../../src/engine/models/image/foreground-colour';

const WIDTH = 160;
const HEIGHT = 90;

/** a subject (warm, textured) on the left over a green background, the edge a soft ramp from x = 77 to 83 (mattes are soft over a few pixels) */
function composite(): { rgb: Uint8Array; alpha: Uint8Array; subject: Uint8Array } {
  const rgb = new Uint8Array(WIDTH * HEIGHT * 3);
  const subject = new Uint8Array(WIDTH * HEIGHT * 3);
  const alpha = new Uint8Array(WIDTH * HEIGHT);
  const green = [30, 190, 60];
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const p = y * WIDTH + x;
      const own = [200 + ((x * 7 + y * 3) % 40), 90 + ((x + y) % 30), 60];
      const a = Math.round(255 * Math.min(1, Math.max(0, (83 - x) / 6)));
      alpha[p] = a;
      for (let c = 0; c < 3; c++) {
        subject[3 * p + c] = own[c];
        rgb[3 * p + c] = Math.round((a * own[c] + (255 - a) * green[c]) / 255);
      }
    }
  }
  return { rgb, alpha, subject };
}

/** mean |a - b| over the pixels whose alpha is soft (weighted as they show: by alpha) */
function bandError(a: Uint8Array, b: Uint8Array, alpha: Uint8Array): number {
  let sum = 0;
  let weight = 0;
  for (let p = 0; p < alpha.length; p++) {
    if (alpha[p] === 0 || alpha[p] === 255) continue;
    for (let c = 0; c < 3; c++) sum += (alpha[p] / 255) * Math.abs(a[3 * p + c] - b[3 * p + c]);
    weight += 3 * (alpha[p] / 255);
  }
  return sum / weight;
}

describe('estimateForeground (blur fusion)', () => {
  it("recovers the subject's own colour in the soft edge, where the source pixel is mixed with the old background", () => {
    const { rgb, alpha, subject } = composite();
    const estimate = estimateForeground(rgb, alpha, WIDTH, HEIGHT);
    const sourceError = bandError(rgb, subject, alpha);
    const estimateError = bandError(estimate, subject, alpha);
    expect(sourceError).toBeGreaterThan(30);
    expect(estimateError).toBeLessThan(0.4 * sourceError); // measured 11.5 against 35.5
  });

  it('keeps the source pixel wherever the matte is opaque', () => {
    const { rgb, alpha } = composite();
    const estimate = estimateForeground(rgb, alpha, WIDTH, HEIGHT);
    for (let p = 0; p < alpha.length; p++) {
      if (alpha[p] === 255) expect([estimate[3 * p], estimate[3 * p + 1], estimate[3 * p + 2]]).toEqual([rgb[3 * p], rgb[3 * p + 1], rgb[3 * p + 2]]);
    }
  });

  it('returns the frame itself when the matte has no soft pixel', () => {
    const { rgb } = composite();
    const hard = new Uint8Array(WIDTH * HEIGHT).map((_, p) => (p % WIDTH < 80 ? 255 : 0));
    expect(estimateForeground(rgb, hard, WIDTH, HEIGHT)).toBe(rgb);
  });

  it('copes with frames smaller than its windows', () => {
    const rgb = new Uint8Array([10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120]);
    const estimate = estimateForeground(rgb, new Uint8Array([0, 128, 255, 64]), 2, 2);
    expect(estimate).toHaveLength(12);
    expect(Array.from(estimate.subarray(6, 9))).toEqual([70, 80, 90]); // the opaque pixel
  });
});
