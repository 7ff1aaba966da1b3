/**
 * What `pro`'s text prompt can name: the 80 COCO object classes (the classes the detector was
 * trained on, in its output order), each with common synonyms and plurals. Pure: no model here.
 */

export const COCO_CLASSES = [
  'person', 'bicycle', 'car', 'motorcycle', 'airplane', 'bus', 'train', 'truck', 'boat', 'traffic light',
  'fire hydrant', 'stop sign', 'parking meter', 'bench', 'bird', 'cat', 'dog', 'horse', 'sheep', 'cow',
  'elephant', 'bear', 'zebra', 'giraffe', 'backpack', 'umbrella', 'handbag', 'tie', 'suitcase', 'frisbee',
  'skis', 'snowboard', 'sports ball', 'kite', 'baseball bat', 'baseball glove', 'skateboard', 'surfboard', 'tennis racket', 'bottle',
  'wine glass', 'cup', 'fork', 'knife', 'spoon', 'bowl', 'banana', 'apple', 'sandwich', 'orange',
  'broccoli', 'carrot', 'hot dog', 'pizza', 'donut', 'cake', 'chair', 'couch', 'potted plant', 'bed',
  'dining table', 'toilet', 'tv', 'laptop', 'mouse', 'remote', 'keyboard', 'cell phone', 'microwave', 'oven',
  'toaster', 'sink', 'refrigerator', 'book', 'clock', 'vase', 'scissors', 'teddy bear', 'hair drier', 'toothbrush',
] as const;

export type CocoClass = (typeof COCO_CLASSES)[number];

/** other names for a class, singular; plurals are derived (see `pluralsOf`) unless irregular */
const SYNONYMS: Partial<Record<CocoClass, readonly string[]>> = {
  person: ['people', 'human', 'humans', 'man', 'men', 'woman', 'women', 'boy', 'girl', 'child', 'children', 'kid', 'baby', 'babies', 'adult', 'guy', 'lady', 'ladies', 'pedestrian', 'player', 'dancer', 'runner', 'rider', 'someone', 'everyone', 'everybody', 'presenter', 'speaker'],
  bicycle: ['bike', 'cycle'],
  car: ['automobile', 'auto', 'vehicle', 'sedan', 'suv', 'taxi', 'cab', 'jeep', 'van'],
  motorcycle: ['motorbike', 'scooter', 'moped'],
  airplane: ['aeroplane', 'plane', 'aircraft', 'jet', 'airliner'],
  bus: ['buses', 'coach', 'minibus'],
  train: ['locomotive', 'tram', 'railcar'],
  truck: ['lorry', 'pickup', 'pickup truck'],
  boat: ['ship', 'yacht', 'canoe', 'kayak', 'sailboat', 'ferry'],
  'traffic light': ['traffic signal', 'stoplight'],
  'fire hydrant': ['hydrant'],
  bench: ['benches'],
  bird: ['parrot', 'pigeon', 'seagull', 'duck', 'chicken'],
  cat: ['kitten', 'kitty'],
  dog: ['puppy', 'puppies', 'doggy', 'hound'],
  horse: ['pony', 'ponies', 'foal'],
  sheep: ['lamb'],
  cow: ['cattle', 'bull', 'calf', 'calves', 'ox', 'oxen'],
  bear: ['grizzly'],
  backpack: ['rucksack', 'knapsack'],
  handbag: ['purse', 'bag'],
  tie: ['necktie'],
  suitcase: ['luggage'],
  skis: ['ski'],
  'sports ball': ['ball', 'football', 'soccer ball', 'basketball', 'volleyball', 'tennis ball'],
  'baseball glove': ['mitt'],
  'tennis racket': ['racket', 'racquet'],
  'wine glass': ['glass'],
  cup: ['mug'],
  knife: ['knives'],
  donut: ['doughnut'],
  couch: ['sofa'],
  'potted plant': ['plant', 'houseplant', 'flowerpot'],
  'dining table': ['table'],
  tv: ['television', 'tv set', 'monitor', 'screen'],
  laptop: ['notebook computer'],
  mouse: ['mice', 'computer mouse'],
  remote: ['remote control'],
  'cell phone': ['phone', 'mobile phone', 'smartphone', 'cellphone'],
  refrigerator: ['fridge'],
  'teddy bear': ['teddy', 'stuffed animal'],
  'hair drier': ['hair dryer', 'hairdryer', 'blow dryer'],
};

/** regular English plurals of a (possibly multi-word) name: the last word is pluralised */
export function pluralsOf(name: string): string[] {
  const words = name.split(' ');
  const last = words[words.length - 1];
  const stem = words.slice(0, -1).join(' ');
  const forms = new Set<string>();
  if (/(s|x|z|ch|sh)$/.test(last)) forms.add(`${last}es`);
  else if (/[^aeiou]y$/.test(last)) forms.add(`${last.slice(0, -1)}ies`);
  else forms.add(`${last}s`);
  if (/(ife|lf)$/.test(last)) forms.add(last.replace(/fe?$/, 'ves')); // knife -> knives, calf -> calves
  return [...forms].map((form) => (stem ? `${stem} ${form}` : form));
}

/**
 * A prompt's words as the vocabulary spells them: lower case, accents and compatibility forms
 * folded ("café" is "cafe", a full-width "ｐｅｒｓｏｎ" is "person"), letters and digits of any script
 * kept (an unknown word is reported, not dropped: "café" came out "caf", and "人" vanished).
 */
export function normalise(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[-_]+/g, ' ')
    .replace(/[^\p{L}\p{N} ]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** synonyms above that already name many (a prompt naming many keeps all of them by default) */
const MANY_WORDS = new Set(['people', 'humans', 'men', 'women', 'children', 'babies', 'ladies', 'everyone', 'everybody', 'puppies', 'ponies', 'cattle', 'calves', 'oxen', 'buses', 'benches', 'knives', 'mice', 'skis']);

export interface NameEntry {
  cls: CocoClass;
  /** the name is a plural (or names a group) */
  many: boolean;
}

/** every accepted name (lower case, single spaces) -> its class */
function buildLookup(): Map<string, NameEntry> {
  const lookup = new Map<string, NameEntry>();
  const add = (name: string, cls: CocoClass, many: boolean) => {
    const key = normalise(name);
    if (!lookup.has(key)) lookup.set(key, { cls, many: many || MANY_WORDS.has(key) });
  };
  for (const cls of COCO_CLASSES) {
    for (const name of [cls, ...(SYNONYMS[cls] ?? [])]) {
      add(name, cls, false);
      for (const plural of pluralsOf(name)) add(plural, cls, true);
    }
  }
  return lookup;
}

const LOOKUP = buildLookup();
const LONGEST_NAME_WORDS = Math.max(...[...LOOKUP.keys()].map((k) => k.split(' ').length));

/** the longest subject name starting at `words[start]`: its class, whether it names many, and its length in words */
export function subjectAt(words: readonly string[], start: number): (NameEntry & { length: number }) | undefined {
  for (let n = Math.min(LONGEST_NAME_WORDS, words.length - start); n >= 1; n--) {
    const entry = LOOKUP.get(words.slice(start, start + n).join(' '));
    if (entry) return { ...entry, length: n };
  }
  return undefined;
}

/** words that carry no subject: articles, quantifiers, conjunctions, filler */
export const IGNORED_WORDS = new Set(['a', 'an', 'the', 'this', 'that', 'these', 'those', 'my', 'our', 'your', 'his', 'her', 'their', 'its', 'and', 'or', 'with', 'of', 'only', 'just', 'all', 'any', 'some', 'every', 'each', 'both', 'one', 'two', 'three', 'keep', 'in', 'on', 'at', 'to']);

/** the vocabulary as listed by GET /v1/models: each class with its accepted synonyms */
export function describeVocabulary(): { subject: CocoClass; synonyms: string[] }[] {
  return COCO_CLASSES.map((subject) => ({ subject, synonyms: [...(SYNONYMS[subject] ?? [])] }));
}

/** index of a class in the detector's output */
export function classIndex(cls: CocoClass): number {
  return COCO_CLASSES.indexOf(cls);
}
