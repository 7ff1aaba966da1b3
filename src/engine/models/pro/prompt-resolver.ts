import { COLOUR_NAMES } from './colour-names';
import { hasAttributes, SubjectQuery } from './prompt-grammar';
import { colourShare, ColourRegion, TrackEvidence } from './track-evidence';
import { classIndex } from './vocabulary';

/**
 * Which track segments a prompt's attributes keep, decided once from the evidence of the whole
 * clip (track-evidence.ts: a segment is a stretch of a track between overlaps with other tracks).
 * For each query with attributes, among the segments of its class:
 *
 * 1. Segments seen uncrowded on fewer than 2 keyframes are not candidates: a flicker of the
 *    detector is not a subject, and a glimpse is no evidence.
 * 2. Colour: a segment's score is its mean share of the named colour over the keyframes that
 *    measured it (the mean over the colours named, if several). Candidates scoring at least
 *    `MIN_COLOUR_SHARE` and at least half the best score match; when none does, the best-scoring
 *    one is kept and the notes say so (the prompt named a subject that is there, in another colour).
 * 3. Position and size rank the (colour-matching) candidates by mean box centre or mean box area;
 *    otherwise they are ranked by colour score.
 * 4. Candidates are taken in that order while at most n chosen segments are on screen at once: n
 *    is the count said ("two people"), else 1 for a singular noun ("the woman in blue"), else every
 *    match (plural: "people in red"). One subject seen as several segments is thus kept whole.
 *
 * Pure: evidence in, track ids out.
 */
export const MIN_COLOUR_SHARE = 0.15;
const RELATIVE_COLOUR_SHARE = 0.5;
const MIN_FRAMES = 2;

export interface Resolution {
  /** classes whose tracks are all kept (some query names the class without attributes) */
  wholeClasses: Set<number>;
  /** segments (track-evidence.ts) kept by attribute queries */
  kept: Set<number>;
  notes: string[];
}

interface Candidate {
  id: number;
  evidence: TrackEvidence;
  colourScore: number;
}

function regionOf(query: SubjectQuery, garment: 'upper' | 'lower' | undefined): ColourRegion {
  return query.cls === 'person' && garment ? garment : 'whole';
}

function colourScore(query: SubjectQuery, evidence: TrackEvidence): number {
  if (query.colours.length === 0) return 0;
  const shares = query.colours.map((wish) => colourShare(evidence, regionOf(query, wish.garment), COLOUR_NAMES.indexOf(wish.colour)));
  return shares.reduce((sum, share) => sum + share, 0) / shares.length;
}

function rankKey(query: SubjectQuery, c: Candidate): number {
  const centre = c.evidence.centreXSum / c.evidence.frames;
  const area = c.evidence.areaSum / c.evidence.frames;
  if (query.position === 'left') return centre;
  if (query.position === 'right') return -centre;
  if (query.position === 'middle') return Math.abs(centre - 0.5);
  if (query.position === 'front' || query.size === 'largest') return -area;
  if (query.size === 'smallest') return area;
  return -c.colourScore;
}

export function describeQuery(query: SubjectQuery): string {
  const words: string[] = [];
  if (query.count !== undefined) words.push(String(query.count));
  if (query.size) words.push(query.size);
  words.push(query.cls);
  for (const wish of query.colours) words.push(`${wish.colour}${wish.garment && query.cls === 'person' ? ` (${wish.garment} clothing)` : ''}`);
  if (query.position) words.push(query.position === 'front' ? 'in front' : `on the ${query.position}`);
  return words.join(' ');
}

export function resolveQueries(queries: readonly SubjectQuery[], evidence: ReadonlyMap<number, TrackEvidence>): Resolution {
  const wholeClasses = new Set(queries.filter((q) => !hasAttributes(q)).map((q) => classIndex(q.cls)));
  const kept = new Set<number>();
  const notes: string[] = [];
  for (const query of queries) {
    const cls = classIndex(query.cls);
    if (!hasAttributes(query) || wholeClasses.has(cls)) continue;
    const ofClass = [...evidence].filter(([, e]) => e.cls === cls);
    let candidates: Candidate[] = ofClass
      .filter(([, e]) => e.frames >= MIN_FRAMES)
      .map(([id, e]) => ({ id, evidence: e, colourScore: colourScore(query, e) }));
    const label = describeQuery(query);
    if (candidates.length === 0) {
      notes.push(`pro: "${label}": no ${query.cls} was seen long enough to judge`);
      continue;
    }
    if (query.colours.length > 0) {
      const best = Math.max(...candidates.map((c) => c.colourScore));
      const matching = candidates.filter((c) => c.colourScore >= MIN_COLOUR_SHARE && c.colourScore >= RELATIVE_COLOUR_SHARE * best);
      if (matching.length === 0) {
        notes.push(`pro: "${label}": no ${query.cls} had that colour (best share ${best.toFixed(2)}); keeping the closest`);
        candidates = candidates.filter((c) => c.colourScore === best).slice(0, 1);
      } else {
        candidates = matching;
      }
    }
    candidates.sort((a, b) => rankKey(query, a) - rankKey(query, b) || a.id - b.id);
    const count = query.count ?? (query.many ? candidates.length : 1);
    const chosen: Candidate[] = [];
    const together = (c: Candidate) => chosen.filter((o) => o.evidence.firstFrame <= c.evidence.lastFrame && c.evidence.firstFrame <= o.evidence.lastFrame).length;
    for (const c of candidates) if (together(c) < count) chosen.push(c);
    for (const c of chosen) kept.add(c.id);
    const scores = query.colours.length ? ` (colour share ${chosen.map((c) => c.colourScore.toFixed(2)).join(', ')})` : '';
    const tracks = new Set(ofClass.map(([, e]) => e.trackId)).size;
    notes.push(`pro: "${label}": keeping ${chosen.length} of ${ofClass.length} segment(s) of ${tracks} ${query.cls} track(s)${scores}, decided once from the whole clip`);
  }
  return { wholeClasses, kept, notes };
}
