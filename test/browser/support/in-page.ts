/**
 * Code that runs inside the page, as strings: the test program is type-checked without the DOM
 * library (the server's tsconfig), so page-side code is not written as typed functions here.
 */

/** True once the result video has decoded frames and keeps playing. */
export const RESULT_VIDEO_PLAYS = `(() => {
  const video = document.querySelector('[data-testid="result-video"]');
  return !!video && video.readyState >= 2 && video.getVideoPlaybackQuality().totalVideoFrames >= 5;
})()`;

/** The result video's timeline as the browser reads it from the file: its duration and how far it can seek. */
export const RESULT_VIDEO_TIMELINE = `(() => {
  const video = document.querySelector('[data-testid="result-video"]');
  return { duration: video.duration, seekableEnd: video.seekable.length ? video.seekable.end(video.seekable.length - 1) : 0 };
})()`;

/** The result video's current frame drawn on a canvas: its size and the shares of clear and solid pixels. */
export const RESULT_FRAME_ALPHA = `(() => {
  const video = document.querySelector('[data-testid="result-video"]');
  const canvas = document.createElement('canvas');
  canvas.width = video.videoWidth;
  canvas.height = video.videoHeight;
  const context = canvas.getContext('2d');
  context.drawImage(video, 0, 0);
  const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
  let clear = 0;
  let solid = 0;
  for (let index = 3; index < pixels.length; index += 4) {
    if (pixels[index] < 16) clear += 1;
    else if (pixels[index] > 240) solid += 1;
  }
  return { width: canvas.width, height: canvas.height, clear: clear / (pixels.length / 4), solid: solid / (pixels.length / 4) };
})()`;

export const PAGE_WIDTH = 'document.documentElement.scrollWidth';
