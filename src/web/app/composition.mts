/**
 * The composition editor (canvas, anchor, scale, offset) and its live preview: the canvas drawn to
 * scale with the chosen background, and the video's first frame where the engine will place it.
 */
import { h } from './dom.mjs';
import { field, numberInput, numberOf, select } from './fields.mjs';
import { CompositionValue, foregroundBox, Size } from './geometry.mjs';
import { Anchor, ANCHORS } from './types.mjs';

export interface CompositionEditor {
  element: HTMLElement;
  /** The composition to send, or undefined when "place on a canvas" is off. */
  value(): CompositionValue | undefined;
  /** Errors of the form, in words (empty when valid). */
  problems(): string[];
  setVideo(url: string | null): void;
  refresh(): void;
}

export function compositionEditor(paintBackground: (target: HTMLElement) => void): CompositionEditor {
  const enabled = h('input', { type: 'checkbox', name: 'composition', onchange: refresh });
  const width = numberInput('canvas_width', 1080, { min: 16, max: 4096, step: 1 });
  const height = numberInput('canvas_height', 1920, { min: 16, max: 4096, step: 1 });
  const anchor = select('anchor', ANCHORS.map((name) => [name, name]), 'bottom-center');
  const scale = numberInput('scale', 1, { min: 0.05, max: 8, step: 0.05 });
  const offsetX = numberInput('offset_x', 0, { step: 1 });
  const offsetY = numberInput('offset_y', 0, { step: 1 });
  const controls = h(
    'div',
    { class: 'grid-2 keep-columns' },
    field('Canvas width (px)', width),
    field('Canvas height (px)', height),
    field('Anchor', anchor),
    field('Scale', scale, '1 fits the video inside the canvas'),
    field('Offset x (px)', offsetX, 'to the right'),
    field('Offset y (px)', offsetY, 'down'),
  );
  for (const control of [width, height, anchor, scale, offsetX, offsetY]) control.addEventListener('input', refresh);

  const frame = h('video', { class: 'preview-video', muted: true, playsinline: true, preload: 'auto', 'aria-hidden': 'true' });
  const foreground = h('div', { class: 'preview-foreground', 'data-testid': 'preview-foreground' }, frame);
  const stage = h('div', { class: 'preview-stage', 'data-testid': 'preview-stage' }, foreground);
  const caption = h('p', { class: 'hint preview-caption' });
  const element = h(
    'fieldset',
    { class: 'composition' },
    h('legend', {}, 'Placement'),
    h('label', { class: 'choice' }, enabled, 'Place the cut-out on a canvas of another size'),
    controls,
    h('div', { class: 'preview' }, stage, caption),
  );
  let video: Size | null = null;
  frame.addEventListener('loadedmetadata', () => {
    video = { width: frame.videoWidth, height: frame.videoHeight };
    refresh();
  });

  function read(): CompositionValue {
    return {
      canvas: { width: numberOf(width) ?? 0, height: numberOf(height) ?? 0 },
      foreground: { anchor: anchor.value as Anchor, scale: numberOf(scale) ?? 0, offset: { x: numberOf(offsetX) ?? 0, y: numberOf(offsetY) ?? 0 } },
    };
  }

  function problems(): string[] {
    if (!enabled.checked) return [];
    const { canvas, foreground: fg } = read();
    const list: string[] = [];
    for (const [name, side] of [['width', canvas.width], ['height', canvas.height]] as const) {
      if (!Number.isInteger(side) || side < 16 || side > 4096) list.push(`Canvas ${name} must be a whole number from 16 to 4096.`);
    }
    if (!(fg.scale > 0)) list.push('Scale must be greater than 0.');
    return list;
  }

  function refresh(): void {
    controls.hidden = !enabled.checked;
    paintBackground(stage);
    const source = video ?? { width: 16, height: 9 };
    const composition = enabled.checked && problems().length === 0 ? read() : undefined;
    const canvas = composition?.canvas ?? source;
    const box = composition ? foregroundBox(source, composition) : { x: 0, y: 0, ...source };
    stage.style.aspectRatio = `${canvas.width} / ${canvas.height}`;
    // at most 420 px tall: a tall canvas gets a narrower stage
    stage.style.width = `min(100%, ${Math.round((420 * canvas.width) / canvas.height)}px)`;
    const percent = (value: number, of: number) => `${(value / of) * 100}%`;
    foreground.style.left = percent(box.x, canvas.width);
    foreground.style.top = percent(box.y, canvas.height);
    foreground.style.width = percent(box.width, canvas.width);
    foreground.style.height = percent(box.height, canvas.height);
    caption.textContent = video
      ? `Output ${canvas.width}×${canvas.height}; video ${box.width}×${box.height} at (${box.x}, ${box.y}).`
      : 'Choose a video to preview its placement.';
  }

  refresh();
  return {
    element,
    value: () => (enabled.checked ? read() : undefined),
    problems,
    setVideo(url) {
      video = null;
      if (url) frame.src = url;
      else frame.removeAttribute('src');
      refresh();
    },
    refresh,
  };
}
