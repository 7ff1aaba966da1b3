import { Matte } from '../types';
import { Size } from './geometry';

/** read once: a global looked up in a per-pixel loop is slow under Jest (docs/testing.md) */
const { floor, min } = Math;

/**
 * The bytes to put on the matte pipe for one frame. The pipe's size is fixed by the first matte;
 * a session that later changes resolution gets its matte resampled (nearest) to that size. Always
 * a copy: sessions may reuse their output buffer for the next frame while this one is in flight.
 */
export function matteBytes(matte: Matte, pipeSize: Size): Buffer {
  if (matte.data.length !== matte.width * matte.height) {
    throw new Error(`matte of ${matte.width}x${matte.height} carries ${matte.data.length} bytes`);
  }
  if (matte.width === pipeSize.width && matte.height === pipeSize.height) return Buffer.from(matte.data);
  return resizeNearest(matte, pipeSize);
}

function resizeNearest(matte: Matte, size: Size): Buffer {
  const out = Buffer.allocUnsafe(size.width * size.height);
  for (let y = 0; y < size.height; y++) {
    const sourceRow = min(matte.height - 1, floor(((y + 0.5) * matte.height) / size.height)) * matte.width;
    for (let x = 0; x < size.width; x++) {
      out[y * size.width + x] = matte.data[sourceRow + min(matte.width - 1, floor(((x + 0.5) * matte.width) / size.width))];
    }
  }
  return out;
}
