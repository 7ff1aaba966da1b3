/** Pure composition geometry: where the cut-out foreground lands on the output canvas. */
import { Anchor, Composition, EngineError } from '../types';

export interface Size {
  width: number;
  height: number;
}

export interface Placement extends Size {
  x: number;
  y: number;
}

export interface Layout {
  /** the output frame size */
  canvas: Size;
  /** the foreground's size and top-left corner on the canvas (may reach past the canvas edges) */
  foreground: Placement;
}

/** the nearest even side, at least 2: what a frame scaled for a model or a still is given (4:2:0 chroma halves both sides) */
export function evenSide(side: number): number {
  return Math.max(2, Math.round(side / 2) * 2);
}

/** Larger foregrounds would make ffmpeg's scaler allocate gigabytes for pixels nobody sees. */
export const MAX_FOREGROUND_SIDE = 16384;

type Alignment = 'start' | 'middle' | 'end';

const ANCHOR_ALIGNMENT: Record<Anchor, { horizontal: Alignment; vertical: Alignment }> = {
  center: { horizontal: 'middle', vertical: 'middle' },
  'top-left': { horizontal: 'start', vertical: 'start' },
  'top-center': { horizontal: 'middle', vertical: 'start' },
  'top-right': { horizontal: 'end', vertical: 'start' },
  'center-left': { horizontal: 'start', vertical: 'middle' },
  'center-right': { horizontal: 'end', vertical: 'middle' },
  'bottom-left': { horizontal: 'start', vertical: 'end' },
  'bottom-center': { horizontal: 'middle', vertical: 'end' },
  'bottom-right': { horizontal: 'end', vertical: 'end' },
};

/**
 * Without a composition the canvas is the video itself. With one, `scale` 1 fits the video inside
 * the canvas (contain) and the anchor aligns it; the offset then moves it in canvas pixels (x to
 * the right, y down). Encoders that need even sizes get the canvas grown by one pixel where odd,
 * which adds a row/column of background and never crops the picture.
 */
export function computeLayout(video: Size, composition: Composition | undefined, evenDimensions: boolean): Layout {
  const grow = (side: number) => (evenDimensions && side % 2 === 1 ? side + 1 : side);
  if (!composition) {
    return {
      canvas: { width: grow(video.width), height: grow(video.height) },
      foreground: { width: video.width, height: video.height, x: 0, y: 0 },
    };
  }

  const { canvas = video, foreground } = composition;
  const fit = Math.min(canvas.width / video.width, canvas.height / video.height);
  const width = Math.max(1, Math.round(video.width * fit * foreground.scale));
  const height = Math.max(1, Math.round(video.height * fit * foreground.scale));
  if (width > MAX_FOREGROUND_SIDE || height > MAX_FOREGROUND_SIDE) {
    throw new EngineError('input_invalid', `composition scale ${foreground.scale} makes the foreground ${width}x${height}, over ${MAX_FOREGROUND_SIDE} px`);
  }
  const alignment = ANCHOR_ALIGNMENT[foreground.anchor];
  return {
    canvas: { width: grow(canvas.width), height: grow(canvas.height) },
    foreground: {
      width,
      height,
      x: Math.round(align(alignment.horizontal, canvas.width, width) + foreground.offset.x),
      y: Math.round(align(alignment.vertical, canvas.height, height) + foreground.offset.y),
    },
  };
}

function align(alignment: Alignment, canvasSide: number, foregroundSide: number): number {
  if (alignment === 'start') return 0;
  if (alignment === 'end') return canvasSide - foregroundSide;
  return (canvasSide - foregroundSide) / 2;
}

/** True when the foreground covers the canvas exactly: no background layer has to be drawn. */
export function foregroundFillsCanvas(layout: Layout): boolean {
  const { canvas, foreground } = layout;
  return foreground.x === 0 && foreground.y === 0 && foreground.width === canvas.width && foreground.height === canvas.height;
}
