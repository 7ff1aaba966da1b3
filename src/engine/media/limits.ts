/**
 * Size limits of what the engine decodes, checked from the probe (container and header fields)
 * before any frame is decoded. Decoders also get a cap (`max_pixels`) as a backstop, so a file whose
 * headers lie about its size still cannot make ffmpeg allocate an unbounded frame.
 */
export interface MediaLimits {
  /** widest video frame (display width, after rotation) */
  maxVideoWidth: number;
  /** tallest video frame (display height, after rotation) */
  maxVideoHeight: number;
  /** most pixels in one video frame */
  maxVideoPixels: number;
  /** most pictures a second: the work a video asks for grows with its rate, the price with its seconds alone */
  maxFrameRate: number;
  /** most pixels in a background image */
  maxImagePixels: number;
}

export const DEFAULT_MEDIA_LIMITS: Readonly<MediaLimits> = {
  maxVideoWidth: 4096,
  maxVideoHeight: 4096,
  // 4096x2304: 4K (UHD and DCI) either way up, not a 4096x4096 square
  maxVideoPixels: 4096 * 2304,
  // a phone's slow motion (240 fps) is taken; a 5 s clip at 1000 fps was 5000 frames billed as 5 s
  maxFrameRate: 240,
  maxImagePixels: 40_000_000,
};

/**
 * The decoders' backstop for a pixel limit. Decoders count padded frames (width rounded up to their
 * stride alignment), so a frame the probe accepted must not be refused at decode time: twice the
 * limit still bounds memory while leaving that room.
 */
export function decoderPixelCap(limit: number): number {
  return limit * 2;
}

/** Pure: why a video frame size is refused, or undefined when it is within the limits. */
export function videoSizeViolation(width: number, height: number, limits: MediaLimits): string | undefined {
  const size = `${width}x${height}`;
  if (width > limits.maxVideoWidth || height > limits.maxVideoHeight) {
    return `the video is ${size}, larger than the ${limits.maxVideoWidth}x${limits.maxVideoHeight} limit`;
  }
  if (width * height > limits.maxVideoPixels) {
    return `the video is ${size} (${width * height} pixels a frame), over the limit of ${limits.maxVideoPixels} pixels`;
  }
  return undefined;
}

/** Pure: why a video's frame rate is refused, or undefined when it is within the limit. */
export function frameRateViolation(fps: number, limits: MediaLimits): string | undefined {
  if (!(fps > limits.maxFrameRate)) return undefined;
  return `the video runs at ${Math.round(fps * 100) / 100} frames a second, over the limit of ${limits.maxFrameRate}`;
}

/** Pure: why an image size is refused, or undefined when it is within the limit. */
export function imageSizeViolation(width: number, height: number, limits: MediaLimits): string | undefined {
  if (width * height > limits.maxImagePixels) {
    return `the image is ${width}x${height} (${width * height} pixels), over the limit of ${limits.maxImagePixels} pixels`;
  }
  return undefined;
}
