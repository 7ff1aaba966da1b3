/**
 * A finished job's output over a checkerboard (transparency shows as squares), with a before/after
 * slider over the input when it is at hand, and the download link.
 */
import { h, notice } from './dom.mjs';
import { OUTPUT_EXTENSIONS, type JobView } from './types.mjs';


/** a Download clicked this long after its link was had first asks for a fresh one (the shortest TTL a deployment would set is far longer) */
const LINK_CHECK_AFTER_MS = 10 * 60_000;
/** a player failing again this soon after its link was asked for anew does not ask for another */
const LINK_RETRY_AFTER_MS = 60_000;

function outputElement(job: JobView, url: string): HTMLVideoElement | HTMLImageElement | null {
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

/**
 * `freshUrl`: the output's URL signed anew. A page left open past the URL's lifetime showed an empty
 * player, and its Download led to a JSON 403: the player asks for a fresh link when it cannot load
 * one not just renewed, and the Download link asks for one once its link is LINK_CHECK_AFTER_MS old.
 */
export function resultView(job: JobView, input: Promise<string | null>, freshUrl: () => Promise<string | null>): HTMLElement {
  if (!job.output_url) {
    return h('section', { class: 'card result' }, h('h2', {}, 'Result'), notice('info', 'The output is no longer kept: it was deleted after its retention period.'));
  }
  const output = outputElement(job, job.output_url);
  const fileName = `${job.id}.${OUTPUT_EXTENSIONS[job.output_format as keyof typeof OUTPUT_EXTENSIONS] ?? 'bin'}`;
  const download = h('a', { class: 'button primary', href: job.output_url, download: fileName, title: fileName, 'data-testid': 'download' }, `Download ${fileName.slice(fileName.lastIndexOf('.'))}`);
  const problems = h('div', { class: 'messages' });
  /** when the link in use was had, and when it was last asked for anew (null: never) */
  let linkAt = Date.now();
  let renewedAt: number | null = null;
  const renew = async (): Promise<string | null> => {
    renewedAt = Date.now();
    const url = await freshUrl();
    if (url) {
      linkAt = Date.now();
      download.href = url;
      if (output) output.src = url;
    }
    return url;
  };
  download.addEventListener('click', (event) => {
    if (Date.now() - linkAt < LINK_CHECK_AFTER_MS) return;
    event.preventDefault();
    void renew().then((url) => (url ? download.click() : problems.replaceChildren(notice('error', 'The output could not be downloaded: its link has expired and a new one could not be had.'))));
  });
  const cannotLoad = () => problems.replaceChildren(notice('error', 'The output could not be loaded. Reload the page to try again.'));
  // a link just asked for anew that still fails is not the link's age: said, not asked for again and again
  output?.addEventListener('error', () => {
    if (renewedAt !== null && Date.now() - renewedAt < LINK_RETRY_AFTER_MS) return cannotLoad();
    void renew().then((url) => url || cannotLoad());
  });
  if (!output) {
    return h('section', { class: 'card result' }, h('h2', {}, 'Result'), h('p', {}, `Browsers cannot play ${job.output_format} files; download it to look at it.`), problems, download);
  }
  const toggle = output instanceof HTMLVideoElement ? h('button', { type: 'button', onclick: () => (output.paused ? void output.play() : output.pause()) }, 'Play / pause') : null;
  return h(
    'section',
    { class: 'card result' },
    h('h2', {}, 'Result'),
    h('p', { class: 'hint' }, 'Drag the slider to compare with the original. The checkerboard is where the result is transparent.'),
    comparison(output, input),
    problems,
    h('div', { class: 'row' }, download, toggle),
  );
}
