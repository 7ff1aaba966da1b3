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
  original:
    "The video's main subject, of any kind (the default): an object detector and tracker choose it; people take Robust Video Matting's matte (a recurrent video-matting model), other subjects ISNet's segmentation, moved by the subject's own motion between its runs.",
  light: "The video's main people, fast: Robust Video Matting at a small size (320 px), its state carried from frame to frame, kept on the people a detector tracks.",
  human: "The video's main people: Robust Video Matting at 640 px, its state carried from frame to frame and reset at cuts, kept on the people a detector tracks.",
  pro: 'Only the subjects named in text_prompt (COCO classes, see vocabulary), optionally described by colour (of a person: of the upper or lower clothing), position, size and count (see prompt_attributes), e.g. "person wearing red jacket", "the two people on the right", "the man and his bike": an object detector and tracker select them, people take Robust Video Matting\'s matte and other subjects ISNet\'s segmentation, and attributes are decided once for the whole clip. Without text_prompt, the main subject is kept (by size, position, focus, motion and persistence); "people" or "everyone" keeps every person.',
};

export function modelCatalog(creditsPerMinute: Record<Model, number>): ModelView[] {
  return MODELS.map((name) => ({
    name,
    description: DESCRIPTIONS[name],
    credits_per_minute: creditsPerMinute[name],
    ...(name === 'pro' ? { vocabulary: describeVocabulary(), prompt_attributes: describeAttributes() } : {}),
  }));
}
