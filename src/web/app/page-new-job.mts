/** New job: pick or drop a video (uploaded at once), choose the settings, start, then follow the job. */
import { api, errorText, newIdempotencyKey, storedKey } from './api.mjs';
import { backgroundChooser } from './background.mjs';
import { compositionEditor } from './composition.mjs';
import { h, notice } from './dom.mjs';
import { field, numberInput, numberOf, select } from './fields.mjs';
import type { PageContext } from './router.mjs';
import { loadPricing, rememberInput } from './state.mjs';
import { MODELS, OUTPUT_FORMATS } from './types.mjs';
import { uploadBox } from './upload.mjs';

const MODEL_NOTES: Record<string, string> = {
  light: 'fastest, for people (a video with no one goes to original)',
  human: 'the main people, finest edges',
  original: 'the main subject, of any kind (the API default)',
  pro: 'only the subjects a prompt names',
};

const FORMAT_NOTES: Record<string, string> = {
  webm: 'WebM (VP9 with alpha)',
  mov: 'MOV (ProRes 4444 with alpha)',
  mp4: 'MP4 (H.264, no alpha)',
  gif: 'GIF',
  webp: 'animated WebP',
  png_sequence: 'PNG sequence (zip)',
};

export function newJobPage(context: PageContext): HTMLElement {
  let inputUrl: string | null = null;
  /** while a create is in flight nothing may start another, nor change what it was sent with */
  let submitting = false;
  /** one per submission, kept for its tries (a try whose answer was lost made a second job and charge); new once anything changes */
  let idempotencyKey: string | null = null;
  const messages = h('div', { class: 'messages' });
  const startButton = h('button', { type: 'submit', class: 'primary', disabled: true }, 'Start job');
  const upload = uploadBox(
    (file) => {
      if (inputUrl) URL.revokeObjectURL(inputUrl);
      inputUrl = URL.createObjectURL(file);
      composition.setVideo(inputUrl);
      startButton.disabled = true;
      idempotencyKey = null;
      messages.replaceChildren();
    },
    (result) => (startButton.disabled = submitting || result === null),
    context.signal,
  );

  const model = select('model', MODELS.map((name) => [name, `${name} — ${MODEL_NOTES[name]}`]), 'human');
  const format = select('output_format', OUTPUT_FORMATS.map((name) => [name, FORMAT_NOTES[name]]), 'webm');
  const preview = numberInput('preview_duration', '', { min: 0.5, max: 30, step: 0.5, placeholder: 'whole video' });
  const prompt = h('input', { type: 'text', name: 'text_prompt', maxlength: 500, placeholder: 'person, dog' });
  const promptField = field('Subjects (pro only)', prompt, 'Comma-separated subjects for the pro model.');
  const price = h('small', { class: 'hint' });
  const background = backgroundChooser(() => composition.refresh());
  const composition = compositionEditor((target) => background.paint(target));

  function updateModel(): void {
    promptField.hidden = model.value !== 'pro';
    loadPricing().then(
      (pricing) => (price.textContent = `${pricing.model_pricing_credits_per_minute[model.value] ?? '?'} credits per minute of video`),
      (error: unknown) => (price.textContent = `Pricing unavailable: ${errorText(error)}`),
    );
  }
  model.addEventListener('change', updateModel);
  updateModel();

  function body(videoUrl: string): Record<string, unknown> {
    const seconds = numberOf(preview);
    return {
      video_url: videoUrl,
      model: model.value,
      output_format: format.value,
      background: background.value(),
      ...(composition.value() ? { composition: composition.value() } : {}),
      ...(seconds !== undefined ? { preview_duration: seconds } : {}),
      ...(model.value === 'pro' && prompt.value.trim() ? { text_prompt: prompt.value.trim() } : {}),
    };
  }

  async function submit(event: Event): Promise<void> {
    event.preventDefault();
    const uploaded = upload.current();
    const problems = composition.problems();
    const seconds = numberOf(preview);
    if (seconds !== undefined && (seconds < 0.5 || seconds > 30)) problems.push('Preview duration must be between 0.5 and 30 seconds.');
    if (!uploaded) problems.push('Choose a video and wait for its upload to finish.');
    if (problems.length) return messages.replaceChildren(...problems.map((problem) => notice('error', problem)));
    submitting = true;
    startButton.disabled = true;
    upload.setEnabled(false);
    // the settings too: changed while the create is in flight, a retry would be another submission (a second job)
    const form = event.currentTarget as HTMLFormElement;
    const locked = Array.from(form.elements).filter((element): element is HTMLInputElement => 'disabled' in element && !(element as HTMLInputElement).disabled);
    locked.forEach((element) => (element.disabled = true));
    messages.replaceChildren(notice('info', 'Starting…'));
    const sentInput = inputUrl;
    idempotencyKey ??= newIdempotencyKey();
    try {
      const created = await api.createJob(body(uploaded!.video_url), idempotencyKey);
      if (sentInput) rememberInput(created.id, sentInput);
      context.navigate(`#/jobs/${created.id}`);
    } catch (error) {
      messages.replaceChildren(notice('error', `Could not start the job: ${errorText(error)}`));
    } finally {
      submitting = false;
      locked.forEach((element) => (element.disabled = false));
      upload.setEnabled(true);
      startButton.disabled = !upload.current();
    }
  }

  return h(
    'form',
    // a setting changed: the next Start is another submission, under a key of its own
    { class: 'page new-job', onsubmit: (event: Event) => void submit(event), oninput: () => (idempotencyKey = null), onchange: () => (idempotencyKey = null), novalidate: true },
    h('h1', {}, 'Remove a background'),
    storedKey() ? null : notice('info', 'Paste your API key at the top of the page first (npm start prints a development key).'),
    h('section', { class: 'card' }, h('h2', {}, '1. Video'), upload.element),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, '2. Settings'),
      h('div', { class: 'grid-2' }, field('Model', model, price), field('Output format', format), field('Preview duration (s)', preview, 'Process only the first seconds (0.5 to 30).'), promptField),
      background.element,
      composition.element,
    ),
    h('section', { class: 'card actions' }, messages, startButton),
  );
}
