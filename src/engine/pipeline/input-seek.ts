/**
 * Input seeking for one chunk of a long job. Without it every chunk decoded its input from t=0 and
 * threw away everything before its range, so the last chunks of a long video cost several times the
 * first. A chunk's decoder and encoder now open the input at a keyframe a little before the range
 * (`-ss` before `-i`), and still pick its frames from the same constant-rate sequence as a single
 * run does, so the join keeps exactly the input's frames:
 *
 * - `-copyts` keeps the source's timestamps, less the video stream's first one (`-itsoffset`), as a
 *   single run has them (videoDelayArgs); the chain then subtracts what the microseconds of
 *   `-itsoffset` left of it, as `setpts=PTS-STARTPTS` does in a single run: frame n of the `fps`
 *   filter's sequence is at n/fps on both. The end of the stream, which the `fps` filter pads the
 *   last frame up to and which no setpts moves, is then at the same time on both too.
 * - `-noaccurate_seek`: every frame from the keyframe on reaches the `fps` filter. The frame the
 *   single run shows at a range's first instant may be the one held over from before it (a still
 *   stretch of a variable-rate input); ffmpeg's accurate seek would drop it, and that slot would
 *   be filled with a later frame. From an earlier keyframe it is there, and the trim below, on the
 *   sequence's own frame numbers, is what makes the cut exact.
 * - The margin: demuxers seek on decode timestamps, so the keyframe found at or before the target
 *   can be shown up to the codec's reorder depth after it (B-frames: at most 16 frames in H.264 and
 *   HEVC). Seeking that much earlier still lands at or before the range's first frame.
 *
 * Not for previews (`-t` counts from the first frame read, which a seek moves), not when the probe
 * did not give the stream's start, and not where the decoder guesses the frames' times: those chunks
 * decode from t=0, as before.
 */

/** The video stream's first timestamp, in its own time base (ffprobe's start_pts and time_base), and the file's start. */
export interface VideoStart {
  pts: number;
  timeBase: readonly [numerator: number, denominator: number];
  /** the file's start_time (its earliest stream's), in microseconds as ffmpeg keeps it */
  fileStartMicros: number;
  /**
   * The container leaves the decoder to guess when frames are shown (AVI with B-frames), and its
   * first frame can come after `pts`: a single run counts from that frame, a chunk seeked and
   * counted from `pts` did not (Xvid: the first seam's frame twice, then a frame off its sound).
   * Such an input is not seeked.
   */
  guessedTimes?: boolean;
}

const MARGIN_FRAMES = 17;
const MIN_MARGIN_SECONDS = 1;

/** Where a window of the sequence starting at `firstFrame` seeks its input to (seconds from the file's start); null: no seeking. */
export function inputSeekSeconds(firstFrame: number, fps: number, videoStart: VideoStart | undefined, durationLimit: number | undefined): number | null {
  if (!videoStart || videoStart.guessedTimes || durationLimit !== undefined || !(firstFrame > 0)) return null;
  const seconds = firstFrame / fps - Math.max(MIN_MARGIN_SECONDS, MARGIN_FRAMES / fps);
  return seconds > 0 ? seconds : null;
}

/** The video stream's first timestamp in whole microseconds (what `-itsoffset` takes). */
function videoStartMicros(start: VideoStart): number {
  const [numerator, denominator] = start.timeBase;
  return Math.round((start.pts * numerator * 1e6) / denominator);
}

/**
 * The options before `-i` that make a single run's input start with its picture: a video stream
 * that starts after the file does (its audio first: an mp4 without an edit list, a transport
 * stream, an offset made by hand) is moved back to 0 with everything else in the file. Without
 * them `setpts=PTS-STARTPTS` moved the frames but not the stream's end, which the `fps` filter then
 * padded up to with copies of the last frame, and the audio kept its place: the picture came that
 * much ahead of the sound. With them the audio before the first picture is cut (the presets'
 * `aresample=async=1:first_pts=0`), so sound and picture keep their distance.
 */
export function videoDelayArgs(start: VideoStart | undefined): string[] {
  const delayMicros = videoDelayMicros(start);
  return delayMicros > 0 ? ['-itsoffset', formatMicros(-delayMicros)] : [];
}

/** how long after the file's start its picture starts, in microseconds (0 where unknown) */
function videoDelayMicros(start: VideoStart | undefined): number {
  return start ? Math.max(0, videoStartMicros(start) - start.fileStartMicros) : 0;
}

/**
 * How much of the file a preview of `seconds` reads (`-t` before `-i`, which counts each stream from
 * its own start): a sound that starts before the picture, moved before 0 with it by videoDelayArgs,
 * is read for as much longer, or it stopped short of the preview's end (or before the picture, with
 * nothing left of it). The picture is then read that much too long, and the chain cuts it to
 * `seconds` (previewCut).
 */
export function previewReadSeconds(seconds: number, start: VideoStart | undefined): number {
  return seconds + videoDelayMicros(start) / 1e6;
}

/** `trim` to a preview's `seconds` where its picture was read longer (previewReadSeconds); undefined where it was not */
export function previewCut(seconds: number | undefined, start: VideoStart | undefined): string | undefined {
  return seconds !== undefined && videoDelayMicros(start) > 0 ? `trim=duration=${seconds}` : undefined;
}

/** The options before `-i` that seek to `seconds` from the file's start, with its timestamps kept less the video's start. */
export function seekArgs(seconds: number, start: VideoStart): string[] {
  const offsetMicros = videoStartMicros(start);
  const offset = offsetMicros !== 0 ? ['-itsoffset', formatMicros(-offsetMicros)] : [];
  return ['-copyts', ...offset, '-ss', String(Number(seconds.toFixed(6))), '-noaccurate_seek'];
}

/**
 * `setpts` that puts the video stream's first timestamp exactly at 0 once `-itsoffset` (whole
 * microseconds) moved it there within a microsecond; undefined where it moved it there exactly.
 */
export function fromVideoStart(start: VideoStart): string | undefined {
  const [numerator, denominator] = start.timeBase;
  const offsetMicros = videoStartMicros(start);
  if (BigInt(offsetMicros) * BigInt(denominator) === BigInt(start.pts) * BigInt(numerator) * 1_000_000n) return undefined;
  return `setpts=PTS-(${start.pts * numerator}/${denominator}-${offsetMicros}/1000000)/TB`;
}

function formatMicros(micros: number): string {
  return (micros / 1e6).toFixed(6);
}

/** From ffprobe: a stream's start_pts and time_base, the format's start_time; undefined when one is missing or malformed. */
export function parseVideoStart(startPts: number | string | undefined, timeBase: string | undefined, fileStart: string | undefined): VideoStart | undefined {
  const pts = Number(startPts);
  const match = /^(\d+)\/(\d+)$/.exec(timeBase ?? '');
  const fileStartMicros = Math.round(Number(fileStart) * 1e6);
  if (startPts === undefined || !Number.isSafeInteger(pts) || !match || fileStart === undefined || !Number.isSafeInteger(fileStartMicros)) return undefined;
  const numerator = Number(match[1]);
  const denominator = Number(match[2]);
  return numerator > 0 && denominator > 0 ? { pts, timeBase: [numerator, denominator], fileStartMicros } : undefined;
}
