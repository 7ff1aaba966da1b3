import { describeAttributes } from '../../../engine/models/pro/prompt-grammar';
import { describeVocabulary } from '../../../engine/models/pro/vocabulary';
import { Model, MODELS } from '../../../contract/job-settings';

/** What GET /v1/models lists for each model. */
export interface ModelView {
  name: Model;
  description: string;
  credits_per_minute: number;
  /** `pro` only: the subjects its text_prompt can name */
  vocabulary?: { subject: string; synonyms: string[] }[];
  /** `pro` only: the attribute words a text_prompt can use beside a subject (README: what a prompt can say) */
  prompt_attributes?: ReturnType<typeof describeAttributes>;
}

const DESCRIPTIONS: Record<Model, string> = {
  original: 'General subjects: ISNet segmentation on keyframes, motion-propagated in between.',
  light: 'People, fast: a small per-frame selfie segmentation model.',
  human: "People with ISNet's edges: ISNet gated by a per-frame person mask.",
  pro: 'Only the subjects named in text_prompt (COCO classes, see vocabulary), optionally described by colour (of a person: of the upper or lower clothing), position, size and count (see prompt_attributes), e.g. "person wearing red jacket", "the two people on the right", "the man and his bike": an object detector and tracker select them in ISNet\'s segmentation, and attributes are decided once for the whole clip. Without text_prompt, the main subject is kept (by size, position, focus, motion and persistence); "people" or "everyone" keeps every person.',
};

export function modelCatalog(creditsPerMinute: Record<Model, number>): ModelView[] {
  return MODELS.map((name) => ({
    name,
    description: DESCRIPTIONS[name],
    credits_per_minute: creditsPerMinute[name],
    ...(name === 'pro' ? { vocabulary: describeVocabulary(), prompt_attributes: describeAttributes() } : {}),
  }));
}
