import { HandOver, Matte, RgbFrame, SegmentationSession, SessionOptions } from '../../types';
import { emptyMatte, isBlank } from '../image/blank-frame';
import { toAlphaBytes } from '../image/resample';
import { InOrder } from '../in-order';
import { peopleMatte } from '../original/subject-matte';
import { PeopleSeen } from '../people-seen';
import { MainSubjectFinder } from '../pro/main-subjects';
import { RvmOutput } from '../rvm/rvm-matter';
import { PeopleRvm } from '../rvm/picture-rvm';
import { PeopleJumps } from '../rvm/people-jump';

/**
 * `human` and `light` over one video: RVM's matte of every person it sees, kept on the video's
 * main people (the dancer, not the seated crowd around them). NanoDet finds and tracks people on
 * keyframes and the subject selector chooses among them (main-subjects.ts, the rule in the README's
 * "How a subject is chosen"); the chosen people's regions of RVM's matte are kept (subject-matte.ts).
 */
export class MainPeopleSession implements SegmentationSession {
  readonly notes: string[] = [];
  private readonly seen: PeopleSeen;
  private previous?: Float32Array;
  /** RVM's people against the frame before's (people-jump.ts) */
  private readonly jumps = new PeopleJumps();
  /** frames have their people chosen one after another, in order */
  private readonly choosing = new InOrder();

  /**
   * `framesInFlight`: RVM works on the next frames while this one's people are chosen (and NanoDet
   * runs on keyframes); `video.keepVideo`: never hand the video over (SessionOptions.keepVideo)
   */
  constructor(
    model: 'human' | 'light',
    video: Pick<SessionOptions, 'fps' | 'keepVideo'>,
    private readonly rvm: PeopleRvm,
    private readonly subjects: MainSubjectFinder,
    readonly framesInFlight: number,
  ) {
    this.seen = new PeopleSeen(model, video.fps, video.keepVideo);
  }

  /** a video in which no one was kept, shorter than PeopleSeen's deadline */
  handOverAtEnd(): HandOver | undefined {
    return this.seen.atEnd();
  }

  get keepsVideo(): boolean {
    return this.seen.keepsVideo;
  }

  get inputWidth(): number {
    return this.rvm.inputWidth;
  }

  get inputHeight(): number {
    return this.rvm.inputHeight;
  }

  get matteSize(): { width: number; height: number } {
    return this.rvm.matteSize;
  }

  /**
   * RVM takes the frame at once; the people are chosen frame after frame, in order. Rejects with
   * a HandOver to `original` once the video's first half second of picture kept no one
   * (people-seen.ts); a blank frame gets an empty matte.
   */
  segment(frame: RgbFrame): Promise<Matte> {
    if (isBlank(frame)) {
      // nothing to matte (black, a flat card): RVM does not run, and starts afresh on the next picture, as after a cut
      this.rvm.restart();
      return this.choosing.run(async () => this.nothingIn(frame));
    }
    const matted = this.rvm.matte(frame);
    matted.catch(() => undefined); // awaited in choosePeople, after the frames before this one
    return this.choosing.run(() => this.choosePeople(frame, matted));
  }

  /** a blank frame's matte: empty; it does not count toward the hand-over (people-seen.ts) */
  private nothingIn(frame: RgbFrame): Matte {
    this.previous = undefined;
    this.jumps.forget();
    return emptyMatte(frame);
  }

  private async choosePeople(frame: RgbFrame, matted: Promise<RvmOutput>): Promise<Matte> {
    // on keyframes the detector runs beside RVM's stages (they leave each other's idle core time)
    let observed = this.subjects.begin(frame.data, frame.width, frame.height);
    const rvm = await matted;
    const people = rvm.alpha;
    const jumped = this.jumps.jumpedTo(people, frame.width, frame.height);
    if (rvm.afterCut) {
      // another shot: its people are found afresh, not where the last shot's stood
      this.previous = undefined;
      observed = this.subjects.newShot(frame.data, frame.width, frame.height);
    } else if (jumped) {
      // the people jumped (a cut within one room): found afresh too, RVM's state kept
      observed = this.subjects.newShot(frame.data, frame.width, frame.height);
    }
    const subjects = await observed(people);
    const matte = peopleMatte({ width: frame.width, height: frame.height, people, previous: this.previous }, subjects);
    this.previous = matte;
    const alpha = matte === people ? rvm.alphaBytes : toAlphaBytes(matte);
    this.seen.observe(alpha);
    return { width: frame.width, height: frame.height, data: alpha };
  }

  async close(): Promise<void> {
    await this.rvm.close();
  }
}
