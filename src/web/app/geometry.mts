/**
 * Where the foreground lands on the canvas, as the engine computes it (src/engine/pipeline/geometry.ts):
 * scale 1 fits the video inside the canvas, the anchor aligns it, the offset moves it in canvas pixels.
 */
import type { Anchor } from './types.mjs';

export interface Size {
  width: number;
  height: number;
}

export interface Box extends Size {
  x: number;
  y: number;
}

export interface CompositionValue {
  canvas: Size;
  foreground: { anchor: Anchor; scale: number; offset: { x: number; y: number } };
}

function alignOn(anchorPart: string, canvasSide: number, side: number): number {
  if (anchorPart === 'start') return 0;
  if (anchorPart === 'end') return canvasSide - side;
  return (canvasSide - side) / 2;
}

function anchorParts(anchor: Anchor): { horizontal: string; vertical: string } {
  const [first, second] = anchor === 'center' ? ['center', 'center'] : anchor.split('-');
  const side = (part: string | undefined, startName: string, endName: string) => (part === startName ? 'start' : part === endName ? 'end' : 'middle');
  return { vertical: side(first, 'top', 'bottom'), horizontal: side(second, 'left', 'right') };
}

export function foregroundBox(video: Size, composition: CompositionValue): Box {
  const { canvas, foreground } = composition;
  const fit = Math.min(canvas.width / video.width, canvas.height / video.height);
  const width = Math.max(1, Math.round(video.width * fit * foreground.scale));
  const height = Math.max(1, Math.round(video.height * fit * foreground.scale));
  const parts = anchorParts(foreground.anchor);
  return {
    width,
    height,
    x: Math.round(alignOn(parts.horizontal, canvas.width, width) + foreground.offset.x),
    y: Math.round(alignOn(parts.vertical, canvas.height, height) + foreground.offset.y),
  };
}
