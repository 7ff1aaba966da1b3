/** The daily usage chart: credits as bars (left axis), jobs as a line (right axis), drawn as inline SVG. */
import { svg } from './dom.mjs';
import type { UsageSummary } from './types.mjs';

const WIDTH = 640;
const HEIGHT = 240;
const PAD = { left: 44, right: 36, top: 16, bottom: 28 };

/** A round axis maximum (1, 2, 5 x 10^n) at or above the data's. */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 5, 10].find((step) => step * power >= value) ?? 10) * power;
}

const tick = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(1));

export function usageChart(daily: UsageSummary['daily']): SVGSVGElement {
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const creditsMax = niceMax(Math.max(...daily.map((day) => day.credits_used), 0));
  const jobsMax = niceMax(Math.max(...daily.map((day) => day.total_jobs), 0));
  const slot = plotWidth / Math.max(daily.length, 1);
  const yCredits = (value: number) => PAD.top + plotHeight - (value / creditsMax) * plotHeight;
  const yJobs = (value: number) => PAD.top + plotHeight - (value / jobsMax) * plotHeight;
  const labelEvery = Math.ceil(daily.length / 8);

  const grid = [0, 0.5, 1].map((share) => {
    const y = PAD.top + plotHeight * (1 - share);
    return svg(
      'g',
      {},
      svg('line', { x1: PAD.left, x2: WIDTH - PAD.right, y1: y, y2: y, class: 'grid-line' }),
      svg('text', { x: PAD.left - 6, y: y + 4, 'text-anchor': 'end', class: 'axis credits-axis' }, tick(creditsMax * share)),
      svg('text', { x: WIDTH - PAD.right + 6, y: y + 4, class: 'axis jobs-axis' }, tick(jobsMax * share)),
    );
  });
  const bars = daily.map((day, index) => {
    const x = PAD.left + index * slot + slot * 0.15;
    const y = yCredits(day.credits_used);
    return svg(
      'g',
      { class: 'day' },
      svg('rect', { x, y, width: slot * 0.7, height: PAD.top + plotHeight - y, class: 'bar-credits' }, svg('title', {}, `${day.date}: ${day.credits_used} credits, ${day.total_jobs} jobs (${day.completed_jobs} completed, ${day.failed_jobs} failed)`)),
      index % labelEvery === 0 ? svg('text', { x: x + slot * 0.35, y: HEIGHT - 8, 'text-anchor': 'middle', class: 'axis' }, day.date.slice(5)) : null,
    );
  });
  const points = daily.map((day, index) => [PAD.left + (index + 0.5) * slot, yJobs(day.total_jobs)] as const);
  const line = svg('polyline', { points: points.map(([x, y]) => `${x},${y}`).join(' '), class: 'line-jobs' });
  const dots = points.map(([x, y]) => svg('circle', { cx: x, cy: y, r: 3, class: 'dot-jobs' }));

  return svg(
    'svg',
    { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: 'chart', role: 'img', 'aria-label': `Credits and jobs per day over ${daily.length} days`, 'data-testid': 'usage-chart' },
    ...grid,
    ...bars,
    line,
    ...dots,
  );
}
