/**
 * One job: status and progress, polled (after 2 s, then every 5 s) until it completes or fails. A
 * draft waits for its Start, not polled: it changes only when started (it was polled for good).
 */
import { api, ApiError, errorText } from './api.mjs';
import { fill, formatDate, formatSeconds, h, notice } from './dom.mjs';
import { resultView } from './result.mjs';
import { PageContext, sleep } from './router.mjs';
import { inputOf } from './state.mjs';
import { TERMINAL_STATUSES, type JobView } from './types.mjs';
import { progressBar } from './upload.mjs';


export function statusBadge(status: string): HTMLElement {
  return h('span', { class: `badge badge-${status}`, 'data-testid': 'status' }, status);
}

function details(job: JobView): HTMLElement {
  const row = (name: string, value: string) => [h('dt', {}, name), h('dd', {}, value)];
  return h(
    'dl',
    { class: 'details' },
    ...row('Model', job.model),
    ...row('Format', job.output_format),
    ...row('Created', formatDate(job.created_at)),
    ...row('Completed', formatDate(job.completed_at)),
    ...row('Output duration', formatSeconds(job.duration_seconds)),
    ...row('Preview', job.preview_duration ? `first ${job.preview_duration} s` : 'whole video'),
    ...row('Billing', job.billing_status ?? '—'),
  );
}

/** what a job that did not complete says: a cancel is no failure */
function endNotice(job: JobView): HTMLElement {
  if (job.error_code === 'canceled') return notice('info', `The job was canceled${job.billing_status === 'refunded' ? '; its credits were refunded' : ''}.`);
  return notice('error', `The job failed: ${job.error ?? 'no reason given'}${job.error_code ? ` (${job.error_code})` : ''}`);
}

/** the engine's notes on the job (a prompt's words it ignored, a format without alpha composited over black) */
function notesOf(job: JobView): HTMLElement | null {
  if (!job.notes?.length) return null;
  return h('ul', { class: 'notes', 'aria-label': 'Notes' }, ...job.notes.map((note) => h('li', {}, note)));
}

/** the wait before the next poll: the server's Retry-After, longer after each failure in a row (at most a minute) */
function pollDelayMs(round: number, failures: number, error: unknown): number {
  const base = round === 0 ? 2000 : 5000;
  // at most 5 minutes: a proxy's Retry-After of a day would leave the page still for a day
  const retryAfterMs = error instanceof ApiError && error.retryAfterSeconds !== null ? Math.min(error.retryAfterSeconds, 300) * 1000 : 0;
  return Math.max(retryAfterMs, Math.min(60_000, base * 2 ** failures));
}

export function jobPage(context: PageContext): HTMLElement {
  const id = context.params.id;
  const header = h('div', { class: 'job-status' }, h('p', {}, 'Loading…'));
  // the status as it changes, for screen readers (not every percent of progress)
  const announcer = h('p', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite' });
  const info = h('div');
  const result = h('div');
  const problems = h('div', { class: 'messages' });
  const bar = progressBar('Job progress');
  let shownStatus: string | null = null;

  function show(job: JobView): void {
    fill(header, statusBadge(job.status), job.status === 'completed' || job.status === 'failed' ? null : bar.element);
    bar.set(job.progress, job.status === 'processing' ? `${Math.round(job.progress)}%` : job.status === 'pending' ? 'Waiting for a worker…' : '');
    if (job.status !== shownStatus) announcer.textContent = `Job ${job.status === 'failed' && job.error_code === 'canceled' ? 'canceled' : job.status}`;
    shownStatus = job.status;
    fill(info, details(job), notesOf(job));
    if (job.status === 'failed') fill(result, endNotice(job));
    if (job.status === 'completed') fill(result, resultView(job, inputOf(job.id, job.video_url), refreshOutput));
    if (job.status === 'created') fill(result, startButton());
  }

  /** the output's signed URL expired (a page left open past its lifetime): the job again, with a fresh one */
  function refreshOutput(): Promise<string | null> {
    return api.job(id).then(
      (job) => job.output_url,
      () => null,
    );
  }

  function startButton(): HTMLElement {
    const button = h('button', { type: 'button', class: 'primary', 'data-testid': 'start-draft' }, 'Start this draft');
    button.addEventListener('click', () => {
      button.setAttribute('disabled', '');
      api.startJob(id).then(
        ({ job }) => {
          result.replaceChildren();
          show(job);
          void poll();
        },
        (error: unknown) => {
          button.removeAttribute('disabled');
          problems.replaceChildren(notice('error', `Could not start the job: ${errorText(error)}`));
        },
      );
    });
    return h('p', {}, button);
  }

  async function poll(): Promise<void> {
    for (let round = 0, failures = 0; !context.signal.aborted; round += 1) {
      let failed: unknown = null;
      try {
        const job = await api.job(id);
        if (context.signal.aborted) return;
        problems.replaceChildren();
        failures = 0;
        show(job);
        if (TERMINAL_STATUSES.includes(job.status) || job.status === 'created') return;
      } catch (error) {
        if (context.signal.aborted) return;
        failed = error;
        problems.replaceChildren(notice('error', errorText(error)));
        if (error instanceof ApiError && [401, 403, 404].includes(error.status)) {
          if (shownStatus === null) fill(header, h('p', {}, 'Could not load this job.'));
          return;
        }
      }
      // a 429 asked again every 5 s spent the key's limit for its other pages and clients too
      if (!(await sleep(pollDelayMs(round, failures, failed), context.signal))) return;
      if (failed) failures += 1;
    }
  }
  void poll();

  return h(
    'div',
    { class: 'page job' },
    h('p', {}, h('a', { href: '#/jobs' }, '← All jobs')),
    h('h1', {}, 'Job ', h('code', {}, id)),
    h('section', { class: 'card' }, header, announcer, problems, info),
    result,
  );
}
