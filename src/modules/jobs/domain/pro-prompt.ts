import { DomainError } from '../../../common/errors/domain-error';
import { parsePrompt, promptSurveysWholeClip } from '../../../engine/models/pro/prompt-grammar';
import { COCO_CLASSES } from '../../../engine/models/pro/vocabulary';

/**
 * Model `pro` keeps only the subjects its text_prompt names. A text_prompt that names no supported
 * subject (empty, or only unknown words) is refused: 400 invalid_request on text_prompt, listing
 * the supported subjects. Unknown words beside known ones are accepted; the engine reports them in
 * the job's notes. A `pro` job without text_prompt keeps the video's main subject, of any of the 80
 * supported classes (README: how a subject is chosen).
 */
export function assertProPrompt(model: string, textPrompt: string | undefined | null): void {
  if (model !== 'pro') return;
  const supported = `supported subjects: ${COCO_CLASSES.join(', ')} (and common synonyms and plurals, see GET /v1/models)`;
  if (textPrompt === undefined || textPrompt === null) return;
  const { subjects, unknownWords } = parsePrompt(textPrompt);
  if (subjects.length === 0) {
    throw DomainError.invalid('text_prompt', `names no supported subject (unknown: ${unknownWords.join(', ') || 'none'}); ${supported}`);
  }
}

/**
 * A `pro` job whose prompt has attributes ("the person in red", "the two people on the left")
 * decides which subjects they name once, from the whole clip, so it is not split into chunks: each
 * chunk would decide on its own frames, and a chunk where the named subject is absent would keep
 * whoever is closest to the description (or the chunks would disagree on who is on the left).
 */
export function decidesFromWholeClip(model: string, textPrompt: string | null): boolean {
  return model === 'pro' && textPrompt !== null && promptSurveysWholeClip(textPrompt);
}
