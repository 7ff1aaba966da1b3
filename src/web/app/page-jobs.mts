/** The key's jobs, newest first, with a status filter and limit/offset pages (kept in the address). */
import { api, errorText } from './api.mjs';
import { fill, formatDate, formatSeconds, h, notice } from './dom.mjs';
import { select } from './fields.mjs';
import { statusBadge } from './page-job.mjs';
import type { PageContext } from './router.mjs';
import { JOB_STATUSES, JobsPage } from './types.mjs';

const LIMITS = [10, 20, 50, 100];

function table(page: JobsPage, firstPage: string): HTMLElement {
  if (page.items.length === 0 && page.total > 0) return h('p', { class: 'empty' }, 'No jobs on this page. ', h('a', { href: firstPage }, 'Back to the first page'));
  if (page.items.length === 0) return h('p', { class: 'empty' }, 'No jobs here yet.');
  const header = h('thead', {}, h('tr', {}, ...['Job', 'Status', 'Model', 'Format', 'Created', 'Duration'].map((name) => h('th', { scope: 'col' }, name))));
  const rows = page.items.map((job) =>
    h(
      'tr',
      {},
      h('td', { 'data-label': 'Job' }, h('a', { href: `#/jobs/${job.id}` }, h('code', {}, job.id))),
      h('td', { 'data-label': 'Status' }, statusBadge(job.status), job.status === 'processing' ? ` ${Math.round(job.progress)}%` : ''),
      h('td', { 'data-label': 'Model' }, job.model),
      h('td', { 'data-label': 'Format' }, job.output_format),
      h('td', { 'data-label': 'Created' }, formatDate(job.created_at)),
      h('td', { 'data-label': 'Duration' }, formatSeconds(job.duration_seconds)),
    ),
  );
  return h('div', { class: 'table-wrap' }, h('table', { class: 'jobs-table stack-on-phone' }, header, h('tbody', {}, ...rows)));
}

export function jobsPage(context: PageContext): HTMLElement {
  const status = context.query.get('status') ?? '';
  const limit = Number(context.query.get('limit')) || 20;
  const offset = Math.max(0, Number(context.query.get('offset')) || 0);
  const link = (changes: Record<string, string | number>) => {
    const next = new URLSearchParams({ ...(status ? { status } : {}), limit: String(limit), offset: String(offset) });
    for (const [name, value] of Object.entries(changes)) {
      if (value === '') next.delete(name);
      else next.set(name, String(value));
    }
    return `#/jobs?${next}`;
  };

  const filters = h(
    'nav',
    { class: 'filters', 'aria-label': 'Status filter' },
    ...['', ...JOB_STATUSES].map((value) =>
      h('a', { href: link({ status: value, offset: 0 }), class: value === status ? 'chip active' : 'chip', 'aria-current': value === status ? 'page' : null }, value || 'all'),
    ),
  );
  const perPage = select('limit', LIMITS.map((value) => [String(value), `${value} per page`]), String(limit));
  perPage.addEventListener('change', () => context.navigate(link({ limit: perPage.value, offset: 0 })));
  const body = h('div', {}, h('p', {}, 'Loading…'));
  const pager = h('div', { class: 'pager' });

  api.jobs({ status: status || undefined, limit, offset }).then(
    (page) => {
      if (context.signal.aborted) return;
      fill(body, table(page, link({ offset: 0 })));
      const last = Math.min(page.offset + page.items.length, page.total);
      // a disabled link has no address: aria-disabled and the style stopped the mouse, not Enter
      const pageLink = (text: string, offsetTo: number, disabled: boolean) => h('a', { class: 'button', href: disabled ? null : link({ offset: offsetTo }), 'aria-disabled': disabled ? 'true' : null }, text);
      fill(
        pager,
        pageLink('← Newer', Math.max(0, offset - limit), offset === 0),
        h('span', { 'data-testid': 'page-range' }, page.items.length ? `${page.offset + 1}–${last} of ${page.total}` : `${page.total} jobs`),
        pageLink('Older →', offset + limit, last >= page.total),
      );
    },
    (error: unknown) => !context.signal.aborted && fill(body, notice('error', `Could not list jobs: ${errorText(error)}`)),
  );

  return h('div', { class: 'page jobs' }, h('div', { class: 'row spread' }, h('h1', {}, 'Jobs'), h('a', { class: 'button primary', href: '#/new' }, 'New job')), h('section', { class: 'card' }, h('div', { class: 'row spread' }, filters, perPage), body, pager));
}
