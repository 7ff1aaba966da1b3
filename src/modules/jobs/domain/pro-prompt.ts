import { promptSurveysWholeClip } from '../../../engine/models/pro/prompt-grammar';

/**
 * A `pro` job whose prompt has attributes ("the person in red", "the two people on the left")
 * decides which subjects they name once, from the whole clip, so it is not split into chunks: each
 * chunk would decide on its own frames, and a chunk where the named subject is absent would keep
 * whoever is closest to the description (or the chunks would disagree on who is on the left).
 */
export function decidesFromWholeClip(model: string, textPrompt: string | null): boolean {
  return model === 'pro' && textPrompt !== null && promptSurveysWholeClip(textPrompt);
}
