import { Matte, RgbFrame, SegmentationSession } from '../../types';
import { KEYFRAME_INTERVAL } from './main-subjects';
import type { ProSession, SurveyedFrame } from './pro-model';
import { SubjectQuery } from './prompt-grammar';
import { resolveQueries } from './prompt-resolver';
import { EvidenceBook, TrackEvidence } from './track-evidence';
import { PERSON } from './track-chooser';

/** a segment's mean colour shares over its whole matte (undefined when no keyframe measured them) */
function wholeShares(entry: TrackEvidence): Float64Array | undefined {
  const frames = entry.colourFrames.whole;
  return frames ? entry.colourShares.whole.map((share) => share / frames) : undefined;
}

/**
 * `pro` for a prompt with attributes ("the person in red", "the two people on the right"). The
 * choice is made once for the whole clip, so it cannot flip from frame to frame: the engine first
 * feeds every frame to `surveyFrame`, where a first `pro` session tracks the subjects and gathers
 * evidence (track-evidence.ts); `finishSurvey` decides (prompt-resolver.ts). `segment` then runs a
 * second session over the same frames that replays the survey's tracks frame by frame (no
 * detector, no tracking of its own, so the track ids are the survey's) and shows only those decided
 * on. The cost is a second pass over the clip, paid only by prompts with attributes.
 */
export class SurveyedProSession implements SegmentationSession {
  private readonly evidence: EvidenceBook;
  private finished = false;
  /** the survey's tracks after each frame (the output pass shows these) */
  readonly surveyed: SurveyedFrame[] = [];

  constructor(
    private readonly survey: ProSession,
    private readonly main: ProSession,
    private readonly queries: readonly SubjectQuery[],
    aspect: number,
  ) {
    this.evidence = new EvidenceBook(PERSON, aspect);
    const { width, height } = survey.matteSize;
    survey.keyframesOnly = true;
    // both read as the survey finishes each frame, in order, whatever frames are in flight behind it
    survey.observer = (rgb, tracks) => this.evidence.observe(survey.framesFinished, rgb, width, height, tracks);
    survey.frameFinished = () => this.surveyed.push(survey.snapshot);
  }

  get notes(): string[] {
    return this.main.notes;
  }

  get inputWidth(): number {
    return this.main.inputWidth;
  }

  get inputHeight(): number {
    return this.main.inputHeight;
  }

  get matteSize(): { width: number; height: number } {
    return this.main.matteSize;
  }

  /** the session that draws the output (for tests and benchmarks: tracks, keyframes) */
  get output(): ProSession {
    return this.main;
  }

  /** frames may be given before the previous ones are surveyed (up to `framesInFlight`), in order */
  async surveyFrame(frame: RgbFrame): Promise<void> {
    await this.survey.segment(frame);
  }

  finishSurvey(): void {
    const { wholeClasses, kept, notes } = resolveQueries(this.queries, this.evidence.entries);
    const spans = [...kept].map((segment) => this.evidence.frameSpan(segment, KEYFRAME_INTERVAL));
    this.main.keep = (track) => wholeClasses.has(track.cls) || spans.some((s) => s.trackId === track.id && this.main.framesFinished >= s.from && this.main.framesFinished <= s.to);
    const colours = [...this.evidence.entries].map(([segment, entry]) => ({ ...this.evidence.frameSpan(segment, KEYFRAME_INTERVAL), shares: wholeShares(entry) }));
    // a held track keeps the colours of its last segment
    this.main.appearance = (track) => colours.filter((c) => c.trackId === track.id && c.shares && this.main.framesFinished >= c.from).at(-1)?.shares;
    this.main.notes.push(...notes);
    this.main.replay = () => this.surveyed[this.main.framesFinished];
    this.finished = true;
  }

  /** both passes keep frames in flight as a session without attributes does (the two sessions ask for the same people) */
  get framesInFlight(): number {
    return this.main.framesInFlight;
  }

  segment(frame: RgbFrame): Promise<Matte> {
    if (!this.finished) {
      // not surveyed (a caller that skipped it): every track of the named classes, as without attributes
      this.main.notes.push('pro: the clip was not surveyed; the prompt\'s attributes were not applied');
      this.finished = true;
    }
    return this.main.segment(frame);
  }

  async close(): Promise<void> {
    await Promise.all([this.survey.close(), this.main.close()]);
  }
}
