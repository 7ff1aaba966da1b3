/** Usage of the key: totals and a daily chart (GET /v1/usage/summary), recent calls (GET /v1/usage/events). */
import { api, errorText } from './api.mjs';
import { usageChart } from './chart.mjs';
import { fill, formatDate, formatSeconds, h, notice } from './dom.mjs';
import { select } from './fields.mjs';
import type { PageContext } from './router.mjs';
import type { UsageEvents, UsageSummary } from './types.mjs';

function totals(summary: UsageSummary): HTMLElement {
  const tile = (label: string, value: string) => h('div', { class: 'tile' }, h('span', { class: 'tile-value' }, value), h('span', { class: 'tile-label' }, label));
  return h(
    'div',
    { class: 'tiles' },
    tile('credits used', String(summary.credits_used)),
    tile('jobs', String(summary.total_jobs)),
    tile('completed', String(summary.completed_jobs)),
    tile('failed', String(summary.failed_jobs)),
    tile('video processed', formatSeconds(summary.video_seconds)),
    tile('API requests', String(summary.requests)),
  );
}

function legend(): HTMLElement {
  return h('p', { class: 'legend' }, h('span', { class: 'swatch swatch-credits' }), 'credits (left axis) ', h('span', { class: 'swatch swatch-jobs' }), 'jobs (right axis)');
}

function eventsTable(events: UsageEvents): HTMLElement {
  if (events.items.length === 0) return h('p', { class: 'empty' }, 'No calls recorded yet.');
  const header = h('thead', {}, h('tr', {}, ...['Time', 'Call', 'Status', 'Job', 'Credits', 'Duration'].map((name) => h('th', { scope: 'col' }, name))));
  const rows = events.items.map((event) =>
    h(
      'tr',
      {},
      h('td', { 'data-label': 'Time' }, formatDate(event.created_at)),
      h('td', { 'data-label': 'Call' }, h('code', {}, `${event.method} ${event.path}`)),
      h('td', { 'data-label': 'Status' }, String(event.status_code)),
      h('td', { 'data-label': 'Job' }, event.job_id ? h('a', { href: `#/jobs/${event.job_id}` }, h('code', {}, event.job_id)) : '—'),
      h('td', { 'data-label': 'Credits' }, String(event.credits)),
      h('td', { 'data-label': 'Duration' }, `${Math.round(event.duration_ms)} ms`),
    ),
  );
  return h('div', { class: 'table-wrap' }, h('table', { class: 'events-table stack-on-phone' }, header, h('tbody', {}, ...rows)));
}

export function usagePage(context: PageContext): HTMLElement {
  const days = Number(context.query.get('days')) || 7;
  const range = select('days', [7, 14, 30, 90].map((value) => [String(value), `last ${value} days`]), String(days));
  range.addEventListener('change', () => context.navigate(`#/usage?days=${range.value}`));
  const summary = h('div', {}, h('p', {}, 'Loading…'));
  const events = h('div', {}, h('p', {}, 'Loading…'));

  api.usageSummary(days).then(
    (result) => !context.signal.aborted && fill(summary, totals(result), legend(), usageChart(result.daily)),
    (error: unknown) => !context.signal.aborted && fill(summary, notice('error', `Could not load the usage summary: ${errorText(error)}`)),
  );
  api.usageEvents(20).then(
    (result) => !context.signal.aborted && fill(events, eventsTable(result)),
    (error: unknown) => !context.signal.aborted && fill(events, notice('error', `Could not load recent calls: ${errorText(error)}`)),
  );

  return h(
    'div',
    { class: 'page usage' },
    h('div', { class: 'row spread' }, h('h1', {}, 'Usage'), range),
    h('section', { class: 'card' }, h('h2', {}, 'Credits and jobs per day'), summary),
    h('section', { class: 'card' }, h('h2', {}, 'Recent calls'), events),
  );
}
