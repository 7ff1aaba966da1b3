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

export function jobPage(context: PageContext): HTMLElement {
  const id = context.params.id;
  const header = h('div', { class: 'job-status' }, h('p', {}, 'Loading…'));
  const info = h('div');
  const result = h('div');
  const problems = h('div', { class: 'messages' });
  const bar = progressBar('Job progress');

  function show(job: JobView): void {
    fill(header, statusBadge(job.status), job.status === 'completed' || job.status === 'failed' ? null : bar.element);
    bar.set(job.progress, job.status === 'processing' ? `${Math.round(job.progress)}%` : job.status === 'pending' ? 'Waiting for a worker…' : '');
    fill(info, details(job));
    if (job.status === 'failed') fill(result, notice('error', `The job failed: ${job.error ?? 'no reason given'}${job.error_code ? ` (${job.error_code})` : ''}`));
    if (job.status === 'completed') fill(result, resultView(job, inputOf(job.id, job.video_url)));
    if (job.status === 'created') fill(result, startButton());
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
    for (let round = 0; !context.signal.aborted; round += 1) {
      try {
        const job = await api.job(id);
        if (context.signal.aborted) return;
        problems.replaceChildren();
        show(job);
        if (TERMINAL_STATUSES.includes(job.status) || job.status === 'created') return;
      } catch (error) {
        if (context.signal.aborted) return;
        problems.replaceChildren(notice('error', errorText(error)));
        if (error instanceof ApiError && [401, 403, 404].includes(error.status)) return;
      }
      if (!(await sleep(round === 0 ? 2000 : 5000, context.signal))) return;
    }
  }
  void poll();

  return h(
    'div',
    { class: 'page job' },
    h('p', {}, h('a', { href: '#/jobs' }, '← All jobs')),
    h('h1', {}, 'Job ', h('code', {}, id)),
    h('section', { class: 'card' }, header, problems, info),
    result,
  );
}
