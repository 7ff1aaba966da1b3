import { computeLayout, foregroundFillsCanvas, MAX_FOREGROUND_SIDE } from '../../../src/engine/pipeline/geometry';
import { Anchor, Composition, EngineError } from '../../../src/engine/types';
import { engineRequestOf } from '../../../src/common/worker-protocol/engine-request';
import type { JobSettings } from '../../../src/contract/job-settings';

const video = { width: 640, height: 360 };
const compose = (anchor: Anchor, scale = 1, offset = { x: 0, y: 0 }, canvas = { width: 1000, height: 1000 }): Composition => ({
  canvas,
  foreground: { anchor, scale, offset },
});

describe('computeLayout', () => {
  it('without a composition, the canvas is the video', () => {
    const layout = computeLayout(video, undefined, false);
    expect(layout).toEqual({ canvas: video, foreground: { width: 640, height: 360, x: 0, y: 0 } });
    expect(foregroundFillsCanvas(layout)).toBe(true);
  });

  it('grows odd sides by one pixel for encoders that need even sizes, never cropping', () => {
    expect(computeLayout({ width: 201, height: 113 }, undefined, true)).toEqual({
      canvas: { width: 202, height: 114 },
      foreground: { width: 201, height: 113, x: 0, y: 0 },
    });
    expect(computeLayout({ width: 201, height: 113 }, undefined, false).canvas).toEqual({ width: 201, height: 113 });
  });

  it("without a canvas, places the foreground on one of the video's size (the composition was dropped)", () => {
    const layout = computeLayout(video, { foreground: { anchor: 'bottom-right', scale: 0.5, offset: { x: -10, y: -10 } } }, false);
    expect(layout).toEqual({ canvas: video, foreground: { width: 320, height: 180, x: 310, y: 170 } });
    const settings: JobSettings = { model: 'light', outputFormat: 'webm', background: { type: 'transparent' }, composition: { foreground: { anchor: 'bottom-right', scale: 0.5, offset: { x: 0, y: 0 } } }, previewDuration: null, textPrompt: null };
    expect(engineRequestOf({ settings }, '/in', '/out', null).composition).toEqual({
      foreground: { anchor: 'bottom-right', scale: 0.5, offset: { x: 0, y: 0 } },
    });
  });

  it('scale 1 fits the video inside the canvas (contain)', () => {
    // 1000/640 = 1.5625 limits; 360 * 1.5625 = 562.5 -> 563
    expect(computeLayout(video, compose('center'), false).foreground).toEqual({ width: 1000, height: 563, x: 0, y: 219 });
  });

  it.each<[Anchor, number, number]>([
    ['top-left', 0, 0],
    ['top-center', 250, 0],
    ['top-right', 500, 0],
    ['center-left', 0, 360],
    ['center', 250, 360],
    ['center-right', 500, 360],
    ['bottom-left', 0, 719],
    ['bottom-center', 250, 719],
    ['bottom-right', 500, 719],
  ])('anchor %s places a half-size foreground at (%d, %d)', (anchor, x, y) => {
    // half the fit: 500 x 281.25 -> 281; middle rows (1000 - 281) / 2 = 359.5, rounded to 360
    const { foreground } = computeLayout(video, compose(anchor, 0.5), false);
    expect(foreground.width).toBe(500);
    expect(foreground.height).toBe(281);
    expect([foreground.x, foreground.y]).toEqual([x, y]);
  });

  it('offsets move the foreground in canvas pixels, right and down, and may push it off the canvas', () => {
    expect(computeLayout(video, compose('top-left', 0.5, { x: 30, y: -20 }), false).foreground).toMatchObject({ x: 30, y: -20 });
    expect(computeLayout(video, compose('bottom-right', 0.5, { x: 400, y: 10 }), false).foreground).toMatchObject({ x: 900, y: 729 });
  });

  it('scales above 1 overflow the canvas around the anchor', () => {
    const layout = computeLayout(video, compose('center', 2), false);
    expect(layout.foreground).toEqual({ width: 2000, height: 1125, x: -500, y: -62 });
    expect(foregroundFillsCanvas(layout)).toBe(false);
  });

  it('keeps the requested canvas, grown to even only when needed', () => {
    const canvas = { width: 721, height: 405 };
    expect(computeLayout(video, compose('center', 1, { x: 0, y: 0 }, canvas), true).canvas).toEqual({ width: 722, height: 406 });
    expect(computeLayout(video, compose('center', 1, { x: 0, y: 0 }, canvas), false).canvas).toEqual(canvas);
  });

  it('refuses foregrounds too large to scale', () => {
    expect(() => computeLayout(video, compose('center', 100), false)).toThrow(EngineError);
    expect(() => computeLayout(video, compose('center', MAX_FOREGROUND_SIDE / 1000), false)).not.toThrow();
  });
});
