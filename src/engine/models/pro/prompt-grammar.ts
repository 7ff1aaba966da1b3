/**
 * `pro`'s prompt grammar: a prompt is one or more subject phrases joined by commas, semicolons,
 * "and", "plus" or "&". A phrase names one subject class (vocabulary.ts) and may say:
 *   colour     "red", "dark blue"...: of the subject, or for a person of the garment that follows
 *              it ("red jacket": upper clothing; "blue jeans": lower clothing)
 *   position   "on the left", "on the right", "in the middle", "in front" (the largest/nearest)
 *   size       "biggest", "smallest"
 *   count      "two people", "3 dogs"; a plural with no number keeps every match
 * A phrase that names no subject ("red shirt and blue jeans") adds its attributes to the phrase
 * before it. Linking words ("wearing", "in", "dressed") and articles are ignored; every other word
 * is reported as unknown. Pure: no model here.
 */
import { COLOUR_NAMES, ColourName } from './colour-names';
import { CocoClass, IGNORED_WORDS, normalise, subjectAt } from './vocabulary';

export type Garment = 'upper' | 'lower';
export type Position = 'left' | 'right' | 'middle' | 'front';
export type Size = 'largest' | 'smallest';

export interface ColourWish {
  colour: ColourName;
  /** for people: which clothing; absent: the subject as a whole */
  garment?: Garment;
}

export interface SubjectQuery {
  cls: CocoClass;
  /** how many to keep: a number said, 1 for a singular noun with an attribute, undefined for all */
  count?: number;
  /** the noun was plural (or named a group: "people", "everyone") */
  many: boolean;
  colours: ColourWish[];
  position?: Position;
  size?: Size;
}

export interface ParsedPrompt {
  /** requested classes, each once, in the order first named */
  subjects: CocoClass[];
  /** one query per subject phrase, in order */
  queries: SubjectQuery[];
  /** words that name no known subject or attribute (ignored words excluded), each once */
  unknownWords: string[];
}

export const GARMENT_WORDS: Record<Garment, readonly string[]> = {
  upper: ['jacket', 'jackets', 'coat', 'coats', 'shirt', 'shirts', 'tshirt', 't shirt', 'top', 'tops', 'sweater', 'hoodie', 'jumper', 'blouse', 'vest', 'jersey', 'cardigan', 'blazer', 'suit'],
  lower: ['trousers', 'pants', 'jeans', 'shorts', 'skirt', 'leggings', 'slacks'],
};
export const POSITION_WORDS: Record<Position, readonly string[]> = {
  left: ['left', 'leftmost'],
  right: ['right', 'rightmost'],
  middle: ['middle', 'centre', 'center', 'central'],
  front: ['front', 'foreground', 'nearest', 'closest'],
};
export const SIZE_WORDS: Record<Size, readonly string[]> = {
  largest: ['biggest', 'largest', 'big', 'large', 'bigger', 'larger', 'tallest'],
  smallest: ['smallest', 'small', 'smaller', 'little', 'tiny'],
};
/** the most a prompt's count keeps (far more subjects than a detector finds in a frame) */
const MAX_COUNT = 100;
export const NUMBER_WORDS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, single: 1, pair: 2, couple: 2 };
/** words that link a subject to its attributes ("wearing", "dressed in") */
const LINK_WORDS = new Set(['wearing', 'wears', 'dressed', 'who', 'is', 'are', 'standing', 'walking', 'sitting', 'side', 'hand', 'frame', 'picture', 'shot', 'most', 'colored', 'coloured', 'light', 'dark', 'bright']);
/** colour words beyond the canonical names */
const COLOUR_SYNONYMS: Record<string, ColourName> = { gray: 'grey', violet: 'purple', navy: 'blue', crimson: 'red', scarlet: 'red', maroon: 'red', beige: 'brown', tan: 'brown', silver: 'grey', gold: 'yellow', golden: 'yellow', magenta: 'pink', cyan: 'blue', turquoise: 'blue', teal: 'green', olive: 'green' };

function lookupTable<K extends string>(table: Record<K, readonly string[]>): Map<string, K> {
  const map = new Map<string, K>();
  for (const key of Object.keys(table) as K[]) for (const word of table[key]) map.set(word, key);
  return map;
}
const GARMENTS = lookupTable(GARMENT_WORDS);
const POSITIONS = lookupTable(POSITION_WORDS);
const SIZES = lookupTable(SIZE_WORDS);

function colourOf(word: string): ColourName | undefined {
  return (COLOUR_NAMES as readonly string[]).includes(word) ? (word as ColourName) : COLOUR_SYNONYMS[word];
}

/** a garment name at `words[i]` (one or two words): its kind and length */
function garmentAt(words: readonly string[], i: number): { garment: Garment; length: number } | undefined {
  const two = GARMENTS.get(words.slice(i, i + 2).join(' '));
  if (two && i + 1 < words.length) return { garment: two, length: 2 };
  const one = GARMENTS.get(words[i]);
  return one ? { garment: one, length: 1 } : undefined;
}

interface PhraseParts {
  subject?: { cls: CocoClass; many: boolean };
  /** a second subject named in the same phrase ("the man on the bike"): kept as its own query */
  extraSubjects: { cls: CocoClass; many: boolean }[];
  count?: number;
  colours: ColourWish[];
  position?: Position;
  size?: Size;
  unknown: string[];
}

function parsePhrase(words: readonly string[]): PhraseParts {
  const parts: PhraseParts = { extraSubjects: [], colours: [], unknown: [] };
  let pendingColours: ColourName[] = [];
  const flushColours = (garment?: Garment) => {
    for (const colour of pendingColours) {
      if (!parts.colours.some((wish) => wish.colour === colour && wish.garment === garment)) parts.colours.push(garment ? { colour, garment } : { colour });
    }
    pendingColours = [];
  };
  let i = 0;
  while (i < words.length) {
    const word = words[i];
    const colour = colourOf(word);
    // "orange" is a fruit too: a colour only when a subject or garment follows it
    const laterNoun = () => words.slice(i + 1).some((_, k) => subjectAt(words, i + 1 + k) !== undefined || garmentAt(words, i + 1 + k) !== undefined);
    if (colour && (!subjectAt(words, i) || laterNoun())) {
      pendingColours.push(colour);
      i++;
      continue;
    }
    const garment = garmentAt(words, i);
    if (garment) {
      flushColours(garment.garment);
      i += garment.length;
      continue;
    }
    const subject = subjectAt(words, i);
    if (subject) {
      if (!parts.subject) parts.subject = { cls: subject.cls, many: subject.many };
      else if (subject.cls !== parts.subject.cls) parts.extraSubjects.push({ cls: subject.cls, many: subject.many });
      flushColours(); // "red car": the colour of the subject itself
      i += subject.length;
      continue;
    }
    i++;
    const count = /^\d+$/.test(word) ? Number(word) : NUMBER_WORDS[word];
    // a count keeps that many: "0 people" kept none (a clip all transparent), "1e+23" was taken as one
    if (count !== undefined && count >= 1 && count <= MAX_COUNT) parts.count ??= count;
    else if (count !== undefined) parts.unknown.push(word);
    else if (POSITIONS.has(word)) parts.position ??= POSITIONS.get(word);
    else if (SIZES.has(word)) parts.size ??= SIZES.get(word);
    else if (!IGNORED_WORDS.has(word) && !LINK_WORDS.has(word)) parts.unknown.push(word);
  }
  flushColours(); // "the woman in blue": the subject as a whole
  return parts;
}

/** the phrases of a prompt: split on punctuation and on the words that join subjects */
function phrasesOf(text: string): string[][] {
  return text
    .split(/[,;\n&]+|\band\b|\bplus\b/i)
    .map((phrase) => normalise(phrase).split(' ').filter(Boolean))
    .filter((words) => words.length > 0);
}

export function parsePrompt(text: string): ParsedPrompt {
  const queries: SubjectQuery[] = [];
  const unknownWords: string[] = [];
  for (const words of phrasesOf(text)) {
    const parts = parsePhrase(words);
    for (const word of parts.unknown) if (!unknownWords.includes(word)) unknownWords.push(word);
    const attributes = { colours: parts.colours, position: parts.position, size: parts.size };
    const previous = queries[queries.length - 1];
    if (!parts.subject) {
      if (previous) {
        for (const wish of attributes.colours) if (!previous.colours.some((w) => w.colour === wish.colour && w.garment === wish.garment)) previous.colours.push(wish);
        previous.position ??= attributes.position;
        previous.size ??= attributes.size;
        if (parts.count !== undefined) previous.count ??= parts.count;
      } else {
        for (const wish of parts.colours) if (!unknownWords.includes(wish.colour)) unknownWords.push(wish.colour);
      }
      continue;
    }
    queries.push({ cls: parts.subject.cls, many: parts.subject.many || (parts.count ?? 1) > 1, count: parts.count, ...attributes });
    for (const extra of parts.extraSubjects) queries.push({ cls: extra.cls, many: extra.many, colours: [] });
  }
  const subjects: CocoClass[] = [];
  for (const query of queries) if (!subjects.includes(query.cls)) subjects.push(query.cls);
  return { subjects, queries, unknownWords };
}

/** the query has something beyond its class: it selects among the tracks of that class */
export function hasAttributes(query: SubjectQuery): boolean {
  return query.colours.length > 0 || query.position !== undefined || query.size !== undefined || query.count !== undefined;
}

/**
 * Whether `pro` decides a prompt's subjects from the whole clip before it mattes a frame: a prompt
 * with attributes ("the person in red") is resolved once over every track of the video
 * (surveyed-session.ts), so it cannot be split into chunks that each decide on their own frames.
 */
export function promptSurveysWholeClip(textPrompt: string): boolean {
  return parsePrompt(textPrompt).queries.some(hasAttributes);
}

/** the attribute words, as listed by GET /v1/models */
export function describeAttributes() {
  return {
    colours: [...COLOUR_NAMES],
    colour_synonyms: { ...COLOUR_SYNONYMS },
    garments: { upper: [...GARMENT_WORDS.upper], lower: [...GARMENT_WORDS.lower] },
    positions: { ...POSITION_WORDS },
    sizes: { ...SIZE_WORDS },
    counts: Object.keys(NUMBER_WORDS),
    conjunctions: ['and', 'plus', ',', ';', '&'],
  };
}
