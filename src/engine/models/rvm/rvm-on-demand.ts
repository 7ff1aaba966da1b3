import { RgbFrame } from '../../types';
import { RvmOutput } from './rvm-matter';
import { RvmSession } from './rvm-session';

/** what of an RVM session this needs */
export type RvmFrames = Pick<RvmSession, 'matte' | 'restart'>;

interface Entry {
  /** the session's own count of frames (frame indices need not start at 0) */
  sequence: number;
  frame: RgbFrame;
  /** whether the frame goes to RVM before it is finished; undefined while not yet decided */
  ahead?: boolean;
  /** never goes ahead (a blank frame), whatever the frame that decides it says */
  held: boolean;
  output?: Promise<RvmOutput>;
}

/**
 * RVM for `original` and `pro`, on the frames whose people plane is read. While people may matter
 * (`original`: no subject chosen yet, or a person among the chosen; `pro`: a person tracked) frames
 * go to RVM as they arrive, ahead of their turn to be finished (frames in flight). Otherwise RVM's
 * matte is read on keyframes alone (the detector's people checks), so frames wait here and go to
 * RVM only when finished frames ask for them: RVM then does not run on a car or a dog frame after
 * frame.
 *
 * Which frames RVM sees must not depend on how fast they arrive (a run gives the same mattes
 * however many frames are in flight), so whether a frame goes ahead is decided by the frame
 * `lag` frames before it, once that one is finished (`setMode`), and frames go to RVM in order:
 * one whose turn has not been decided holds back those after it. A frame that never went to RVM
 * breaks the recurrent state, and the next one RVM sees starts afresh (as after a scene cut).
 */
export class RvmOnDemand {
  private readonly waiting: Entry[] = [];
  /** whether people mattered after each finished frame, by sequence, kept for `lag` frames */
  private readonly modes = new Map<number, boolean>();
  private arrived = 0;
  /** how many frames went to RVM */
  ran = 0;
  private skipped = false;

  constructor(
    private readonly rvm: RvmFrames,
    private readonly lag: number,
    /** whether the first `lag` frames, which no finished frame decides, go ahead */
    private readonly aheadAtFirst = true,
  ) {}

  /** the next frame, in order; returns its sequence number. `held`: it does not go ahead (a blank frame, which is skipped) */
  add(frame: RgbFrame, held = false): number {
    const sequence = this.arrived++;
    const decidedBy = sequence - this.lag;
    this.waiting.push({ sequence, frame, held, ahead: held ? false : decidedBy < 0 ? this.aheadAtFirst : this.modes.get(decidedBy) });
    this.pump();
    return sequence;
  }

  /** frame `sequence` is finished, and people may matter (`peopleMatter`) from it on */
  setMode(sequence: number, peopleMatter: boolean): void {
    this.modes.set(sequence, peopleMatter);
    this.modes.delete(sequence - this.lag);
    const decided = this.waiting.find((e) => e.sequence === sequence + this.lag);
    if (decided && !decided.held) decided.ahead = peopleMatter;
    this.pump();
  }

  /** RVM's output for frame `sequence` (run now if it has not run) */
  take(sequence: number): Promise<RvmOutput> {
    const entry = this.remove(sequence);
    const output = entry.output ?? this.run(entry);
    this.pump();
    return output;
  }

  /** frame `sequence`'s people plane is not read: it does not go to RVM if it has not yet */
  skip(sequence: number): void {
    if (!this.remove(sequence).output) this.skipped = true;
    this.pump();
  }

  /** the waiting entry `sequence`; earlier ones (of frames that failed) leave with it */
  private remove(sequence: number): Entry {
    let entry: Entry | undefined;
    while (this.waiting.length && this.waiting[0].sequence <= sequence) {
      entry = this.waiting.shift()!;
      if (!entry.output && entry.sequence < sequence) this.skipped = true;
    }
    if (entry?.sequence !== sequence) throw new Error(`frame ${sequence} is not waiting for RVM`);
    return entry;
  }

  /** the waiting frames that go ahead, in order, up to the first that does not (or is undecided) */
  private pump(): void {
    for (const entry of this.waiting) {
      if (entry.output) continue;
      if (entry.ahead !== true) return;
      entry.output = this.run(entry);
    }
  }

  private run(entry: Entry): Promise<RvmOutput> {
    if (this.skipped) this.rvm.restart();
    this.skipped = false;
    this.ran++;
    const output = this.rvm.matte(entry.frame);
    output.catch(() => undefined); // awaited by the frame's finish, after the frames before it
    return output;
  }
}
