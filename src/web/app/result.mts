/**
 * A finished job's output over a checkerboard (transparency shows as squares), with a before/after
 * slider over the input when it is at hand, and the download link.
 */
import { h } from './dom.mjs';
import { OUTPUT_EXTENSIONS, type JobView } from './types.mjs';


function outputElement(job: JobView): HTMLVideoElement | HTMLImageElement | null {
  const url = job.output_url!;
  if (job.output_format === 'webm' || job.output_format === 'mp4') {
    return h('video', { class: 'after', src: url, muted: true, loop: true, autoplay: true, playsinline: true, preload: 'auto', 'data-testid': 'result-video' });
  }
  if (job.output_format === 'gif' || job.output_format === 'webp') return h('img', { class: 'after', src: url, alt: 'Result', 'data-testid': 'result-image' });
  return null;
}

/** Keeps the input playing at the output's time so both sides of the slider show the same frame. */
function follow(before: HTMLVideoElement, after: HTMLVideoElement): void {
  before.muted = true;
  after.muted = true;
  after.addEventListener('timeupdate', () => {
    if (Math.abs(before.currentTime - after.currentTime) > 0.2) before.currentTime = after.currentTime;
  });
  after.addEventListener('play', () => void before.play().catch(() => undefined));
  after.addEventListener('pause', () => before.pause());
}

function comparison(output: HTMLVideoElement | HTMLImageElement, input: Promise<string | null>): HTMLElement {
  const before = h('video', { class: 'before', muted: true, loop: true, playsinline: true, preload: 'auto', 'aria-label': 'Original video' });
  const beforeClip = h('div', { class: 'before-clip', hidden: true }, before, h('span', { class: 'tag tag-before' }, 'Before'));
  const divider = h('div', { class: 'divider', hidden: true });
  const slider = h('input', { type: 'range', min: 0, max: 100, value: 50, class: 'compare-slider', 'aria-label': 'Before / after', hidden: true });
  const stage = h('div', { class: 'compare checkerboard', 'data-testid': 'result' }, output, beforeClip, divider, h('span', { class: 'tag tag-after' }, 'After'), slider);

  const place = () => {
    const share = Number(slider.value);
    beforeClip.style.clipPath = `inset(0 ${100 - share}% 0 0)`;
    divider.style.left = `${share}%`;
  };
  slider.addEventListener('input', place);
  place();

  void input.then((url) => {
    if (!url) return;
    before.src = url;
    beforeClip.hidden = divider.hidden = slider.hidden = false;
    if (output instanceof HTMLVideoElement) follow(before, output);
    else void before.play().catch(() => undefined);
  });
  return stage;
}

export function resultView(job: JobView, input: Promise<string | null>): HTMLElement {
  const output = outputElement(job);
  const fileName = `${job.id}.${OUTPUT_EXTENSIONS[job.output_format as keyof typeof OUTPUT_EXTENSIONS] ?? 'bin'}`;
  const download = h('a', { class: 'button primary', href: job.output_url!, download: fileName, title: fileName, 'data-testid': 'download' }, `Download ${fileName.slice(fileName.lastIndexOf('.'))}`);
  if (!output) {
    return h('section', { class: 'card result' }, h('h2', {}, 'Result'), h('p', {}, `Browsers cannot play ${job.output_format} files; download it to look at it.`), download);
  }
  const toggle = output instanceof HTMLVideoElement ? h('button', { type: 'button', onclick: () => (output.paused ? void output.play() : output.pause()) }, 'Play / pause') : null;
  return h(
    'section',
    { class: 'card result' },
    h('h2', {}, 'Result'),
    h('p', { class: 'hint' }, 'Drag the slider to compare with the original. The checkerboard is where the result is transparent.'),
    comparison(output, input),
    h('div', { class: 'row' }, download, toggle),
  );
}
