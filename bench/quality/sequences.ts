/** The DAVIS 2016 sequences in ../shared/media/davis (evaluation only: read there, never copied) and the floors of issue 15. */

export const DAVIS_SEQUENCES = ['rollerblade', 'swing', 'breakdance-flare', 'kite-walk', 'bmx-trees', 'dog', 'car-roundabout'] as const;
export type DavisSequence = (typeof DAVIS_SEQUENCES)[number];

/** the people sequences `human` is held to (kite-walk's mask holds the board too: `original` is scored there) */
export const HUMAN_SEQUENCES: readonly DavisSequence[] = ['rollerblade', 'swing', 'breakdance-flare'];

/** the composites one folder up, with their exact alpha */
export const COMPOSITES = ['car-slide', 'portrait-pan'] as const;

export interface Floor {
  /** the sequences the floor is over */
  sequences: readonly string[];
  /** mean IoU at least */
  mean?: number;
  /** every sequence's IoU at least */
  each?: number;
}

export const FLOORS: Record<string, Floor[]> = {
  human: [{ sequences: HUMAN_SEQUENCES, mean: 0.85, each: 0.75 }],
  original: [
    { sequences: DAVIS_SEQUENCES, mean: 0.8 },
    { sequences: COMPOSITES, each: 0.95 },
  ],
};

