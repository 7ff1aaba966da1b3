import { Box, boxArea, boxCentre, intersectionArea } from './boxes';
import { COLOUR_NAMES, colourIndex } from './colour-names';

/** read once: a global looked up in a per-pixel loop is slow under Jest (docs/testing.md) */
const { ceil, floor, max, min } = Math;

/**
 * What a prompt's attributes are judged on, gathered over the keyframes a track is seen on: where
 * it is (box centre), how big (box area), and the colour names of its own matte's pixels (not its
 * box's). For a person the colour is read in three bands of the matte: `upper` (upper clothing:
 * below the head to the hips), `lower` (hips to feet) and `whole` (below the head).
 *
 * A keyframe where the track's box overlaps another track's adds nothing: crossing subjects would
 * lend each other their colours. And a box tracker may swap two subjects' identities where they
 * cross, so a track's identity is trusted only between overlaps: each stretch of a track between
 * overlaps is a segment with its own evidence, judged on its own (the overlapping keyframes stay
 * with the segment before them).
 */
export type ColourRegion = 'upper' | 'lower' | 'whole';

export interface TrackEvidence {
  trackId: number;
  cls: number;
  /** the segment's first keyframe (frame index), and its last so far (overlapping ones included) */
  firstFrame: number;
  lastFrame: number;
  /** keyframes the detector saw the track on */
  frames: number;
  centreXSum: number;
  areaSum: number;
  /** per region: summed per-keyframe shares of each colour name (COLOUR_NAMES order) */
  colourShares: Record<ColourRegion, Float64Array>;
  /** per region: keyframes that added colour */
  colourFrames: Record<ColourRegion, number>;
}

/** a matte pixel counts as the subject's own at or above this alpha */
const OWN_ALPHA = 0.8;
/** another track covering this share of a box makes its colours doubtful */
const OVERLAP_SHARE = 0.1;
/** a band needs this many pixels to count on a keyframe */
const MIN_PIXELS = 30;
/**
 * A person's full height is at least this many times the matte's width (an upright body is 3-4
 * times as tall as its shoulders are wide): a person cut off by the frame's bottom edge keeps a
 * head and an upper body of plausible size, and no lower band.
 */
const PERSON_HEIGHT_PER_WIDTH = 3;
/** bands of a person's (estimated) full height, from the top of the matte */
const HEAD = 0.15;
const HIPS = 0.5;
const FEET = 0.95;

export interface ObservedTrack {
  id: number;
  cls: number;
  box: Box;
  /** the detector matched the track on this keyframe */
  detected: boolean;
  /** the track's matte at the frame's size (0..1), when it has one */
  matte?: Float32Array;
}

export class EvidenceBook {
  /** segments by segment id (numbered in the order they start) */
  private readonly book = new Map<number, TrackEvidence>();
  /** each track's open segment, and whether it has been in an overlap since */
  private readonly open = new Map<number, { segment: number; crowded: boolean }>();
  private nextSegment = 1;

  /** `aspect`: the video's display width / height (the frames observed may be stretched) */
  constructor(
    private readonly personClass: number,
    private readonly aspect: number,
  ) {}

  get entries(): ReadonlyMap<number, TrackEvidence> {
    return this.book;
  }

  /**
   * One keyframe (`frame`: its index); `rgb` packed RGB24 at width x height, the same size as the
   * mattes. A segment starts where a track is detected clear of other tracks; it goes on while the
   * track is detected (crowded or not) or held clear of others; it ends where the track is lost in
   * a crowd (held where it was last seen, its box may drift onto the other subject), and the next
   * clear detection after a crowd starts a new one.
   */
  observe(frame: number, rgb: Uint8Array, width: number, height: number, tracks: readonly ObservedTrack[]): void {
    for (const track of tracks) {
      const crowded = tracks.some((other) => other.id !== track.id && intersectionArea(other.box, track.box) > OVERLAP_SHARE * boxArea(track.box));
      let open = this.open.get(track.id);
      if (crowded) {
        if (open && track.detected) {
          open.crowded = true;
          this.book.get(open.segment)!.lastFrame = frame;
        } else if (open) {
          this.open.delete(track.id);
        }
        continue;
      }
      if (!track.detected) {
        if (open) this.book.get(open.segment)!.lastFrame = frame;
        continue;
      }
      if (!open || open.crowded) {
        open = { segment: this.nextSegment++, crowded: false };
        this.open.set(track.id, open);
        const shares = () => new Float64Array(COLOUR_NAMES.length);
        this.book.set(open.segment, { trackId: track.id, cls: track.cls, firstFrame: frame, lastFrame: frame, frames: 0, centreXSum: 0, areaSum: 0, colourShares: { upper: shares(), lower: shares(), whole: shares() }, colourFrames: { upper: 0, lower: 0, whole: 0 } });
      }
      const entry = this.book.get(open.segment)!;
      entry.lastFrame = frame;
      entry.frames++;
      entry.centreXSum += boxCentre(track.box).x;
      entry.areaSum += boxArea(track.box);
      if (track.matte) addColours(entry, rgb, width, height, track, track.cls === this.personClass ? this.aspect : undefined);
    }
  }

  /**
   * The frames a segment stands for: from its first keyframe to the frame before the keyframe after
   * its last (`keyframeInterval`), or before the next segment of the same track starts
   */
  frameSpan(segment: number, keyframeInterval: number): { trackId: number; from: number; to: number } {
    const entry = this.book.get(segment)!;
    const next = [...this.book.values()].filter((e) => e.trackId === entry.trackId && e.firstFrame > entry.firstFrame).map((e) => e.firstFrame);
    return { trackId: entry.trackId, from: entry.firstFrame, to: min(entry.lastFrame + keyframeInterval - 1, ...next.map((n) => n - 1)) };
  }
}

/** `personAspect`: the display aspect when the track is a person (undefined otherwise) */
function addColours(entry: TrackEvidence, rgb: Uint8Array, width: number, height: number, track: ObservedTrack, personAspect: number | undefined): void {
  const person = personAspect !== undefined;
  const matte = track.matte!;
  const x0 = max(0, floor(track.box.x0 * width));
  const x1 = min(width, ceil(track.box.x1 * width));
  const y0 = max(0, floor(track.box.y0 * height));
  const y1 = min(height, ceil(track.box.y1 * height));
  let top = height;
  let bottom = -1;
  let left = width;
  let right = -1;
  for (let y = y0; y < y1; y++) {
    for (let x = x0, i = y * width + x0; x < x1; x++, i++) {
      if (matte[i] < OWN_ALPHA) continue;
      top = min(top, y);
      bottom = max(bottom, y);
      left = min(left, x);
      right = max(right, x);
    }
  }
  if (bottom < top) return;
  // the matte's width in rows of display-shaped pixels
  const displayWidth = person ? ((right - left + 1) / width) * personAspect * height : 0;
  const fullHeight = person ? max(bottom - top + 1, PERSON_HEIGHT_PER_WIDTH * displayWidth) : bottom - top + 1;
  const bands: [ColourRegion, number, number][] = person
    ? [
        ['upper', top + HEAD * fullHeight, top + HIPS * fullHeight],
        ['lower', top + HIPS * fullHeight, top + FEET * fullHeight],
        ['whole', top + HEAD * fullHeight, top + FEET * fullHeight],
      ]
    : [['whole', top, bottom + 1]];
  for (const [region, from, to] of bands) {
    const counts = new Float64Array(COLOUR_NAMES.length);
    let total = 0;
    for (let y = ceil(from); y < min(to, bottom + 1); y++) {
      for (let x = left, i = y * width + left; x <= right; x++, i++) {
        if (matte[i] < OWN_ALPHA) continue;
        counts[colourIndex(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2])]++;
        total++;
      }
    }
    if (total < MIN_PIXELS) continue;
    for (let c = 0; c < counts.length; c++) entry.colourShares[region][c] += counts[c] / total;
    entry.colourFrames[region]++;
  }
}

/** the mean share of `colour` in a region over the keyframes that measured it (0 when none did) */
export function colourShare(entry: TrackEvidence, region: ColourRegion, colourIndexOf: number): number {
  const frames = entry.colourFrames[region];
  return frames ? entry.colourShares[region][colourIndexOf] / frames : 0;
}
