/** a colour's bin: 4 bits a channel, 4096 bins */
const BITS = 4;
const BINS = 1 << (3 * BITS);
/** alpha from which a pixel is surely the subject, and up to which surely background */
const SURE_SUBJECT = 0.95;
const SURE_BACKGROUND = 0.05;
/** the subject's colours are remembered over the frames before, each frame's weight falling by this */
const SUBJECT_MEMORY = 0.95;
/** how many times likelier among the background's colours than among the subject's a suspect pixel's colour must be */
const LIKELIER_IN_BACKGROUND = 8;
/** what a colour never seen counts for: one pixel of the frame, a quarter of a sampled one (`count` samples 1 pixel in 4) */
const UNSEEN = 0.25;
/** the smallest blob dropped, as a share of the frame: fewer pixels are noise, not a patch */
const SMALLEST_BLOB = 0.0005;

/**
 * Drops blobs of a matte that two cues call background: a second opinion (the small pass over the
 * mirrored frame, mirror.ts trimWithMirrored) firmly saw background there, and their colours are
 * far likelier among the frame's sure background than among the subject's sure pixels of the
 * frames before. RVM now and then joins a patch of a busy background to a person (the out-of-frame
 * composite: the generated background beside her hair), confident enough that the trim alone keeps
 * it. A blob is dropped only where it lies at the matte's edge (it touches background) and covers
 * SMALLEST_BLOB of the frame. Either cue alone took away a limb: the underside of a dancer's grey
 * trousers before a grey stone wall (DAVIS breakdance-flare) is background by colour, and on two
 * frames the mirrored pass lost it too; the subject's colours remembered from the frames before,
 * where the trousers were lit, keep it.
 *
 * One instance a video: `restart` after a cut, where the last shot's subject says nothing.
 */
export class BackgroundColours {
  private readonly subject = new Float32Array(BINS);
  private subjectTotal = 0;
  private readonly background = new Float32Array(BINS);
  /** per colour bin, 1 where the colour is far likelier in the background (LIKELIER_IN_BACKGROUND) */
  private readonly backgroundLike = new Uint8Array(BINS);

  /** `alpha` (width x height, 0..1) with those blobs set to 0, in place; `suspects`: the pixels the second opinion firmly called background */
  drop(alpha: Float32Array, rgb: Uint8Array, width: number, height: number, suspects: readonly number[]): void {
    // counted on every frame, suspects or not: the subject's colours are remembered frame to frame
    const backgroundTotal = this.count(alpha, rgb, width, height);
    if (suspects.length === 0 || backgroundTotal === 0 || this.subjectTotal === 0) return;
    const { subject, background, backgroundLike, subjectTotal } = this;
    for (let bin = 0; bin < BINS; bin++) {
      backgroundLike[bin] = (background[bin] + UNSEEN) / backgroundTotal > (LIKELIER_IN_BACKGROUND * (subject[bin] + UNSEEN)) / subjectTotal ? 1 : 0;
    }
    const candidates = suspects.filter((i) => alpha[i] >= 0.5 && backgroundLike[binOf(rgb, i)]);
    if (candidates.length === 0) return;
    const candidate = new Uint8Array(alpha.length);
    for (const i of candidates) candidate[i] = 1;
    dropEdgeBlobs(alpha, candidate, candidates, width, height, SMALLEST_BLOB * width * height);
  }

  restart(): void {
    this.subject.fill(0);
    this.subjectTotal = 0;
  }

  /**
   * The frame's sure background colours (returns their count), and its sure subject colours added
   * to the remembered ones; every 2nd pixel of every 2nd row.
   */
  private count(alpha: Float32Array, rgb: Uint8Array, width: number, height: number): number {
    const { subject, background } = this;
    for (let bin = 0; bin < BINS; bin++) subject[bin] *= SUBJECT_MEMORY;
    let subjectTotal = this.subjectTotal * SUBJECT_MEMORY;
    background.fill(0);
    let backgroundTotal = 0;
    for (let y = 0; y < height; y += 2) {
      for (let i = y * width, end = i + width; i < end; i += 2) {
        const a = alpha[i];
        if (a >= SURE_SUBJECT) {
          subject[binOf(rgb, i)]++;
          subjectTotal++;
        } else if (a <= SURE_BACKGROUND) {
          background[binOf(rgb, i)]++;
          backgroundTotal++;
        }
      }
    }
    this.subjectTotal = subjectTotal;
    return backgroundTotal;
  }
}

function binOf(rgb: Uint8Array, pixel: number): number {
  const o = pixel * 3;
  return ((rgb[o] >> (8 - BITS)) << (2 * BITS)) | ((rgb[o + 1] >> (8 - BITS)) << BITS) | (rgb[o + 2] >> (8 - BITS));
}

/** sets to 0 each 4-connected blob of `candidate` pixels (listed in `candidates`) of at least `smallest` pixels that touches a pixel of `alpha` under 0.5 */
function dropEdgeBlobs(alpha: Float32Array, candidate: Uint8Array, candidates: readonly number[], width: number, height: number, smallest: number): void {
  // a candidate pixel is set to 2 once its blob has it
  const blob: number[] = [];
  let touchesBackground = false;
  const visit = (q: number) => {
    if (candidate[q] === 1) {
      candidate[q] = 2;
      blob.push(q);
    } else if (candidate[q] === 0 && alpha[q] < 0.5) touchesBackground = true;
  };
  for (const start of candidates) {
    if (candidate[start] !== 1) continue;
    blob.length = 0;
    touchesBackground = false;
    visit(start);
    // the blob grows as its pixels' neighbours are visited
    for (let k = 0; k < blob.length; k++) {
      const p = blob[k];
      const x = p % width;
      if (x > 0) visit(p - 1);
      if (x < width - 1) visit(p + 1);
      if (p >= width) visit(p - width);
      if (p < (height - 1) * width) visit(p + width);
    }
    if (touchesBackground && blob.length >= smallest) for (const p of blob) alpha[p] = 0;
  }
}
