/** Pricing (GET /api/pricing, public): credits per minute of each model and the credit packages. */
import { errorText } from './api.mjs';
import { fill, h, notice } from './dom.mjs';
import type { PageContext } from './router.mjs';
import { loadPricing } from './state.mjs';
import type { Pricing } from './types.mjs';

function money(cents: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency}`;
  }
}

function modelsTable(pricing: Pricing): HTMLElement {
  const head = h('tr', {}, ...['Model', 'Credits per minute', 'A 10 s clip'].map((name) => h('th', { scope: 'col' }, name)));
  const rows = Object.entries(pricing.model_pricing_credits_per_minute).map(([model, credits]) =>
    h('tr', {}, h('td', {}, model), h('td', {}, String(credits)), h('td', {}, `${Math.ceil((10 * credits) / 60)} credits`)),
  );
  return h('div', { class: 'table-wrap' }, h('table', {}, h('thead', {}, head), h('tbody', {}, ...rows)));
}

function pricingView(pricing: Pricing): HTMLElement[] {
  const cost = `Cost = seconds processed × credits per minute ÷ 60, rounded up. Legacy price: ${pricing.price_per_second_cents} ¢ per second.`;
  const packages = pricing.packages.map((pack) =>
    h('div', { class: 'tile' }, h('span', { class: 'tile-label' }, pack.name), h('span', { class: 'tile-value' }, `${pack.credits} credits`), h('span', {}, money(pack.price_cents, pack.currency))),
  );
  return [
    h('section', { class: 'card' }, h('h2', {}, 'Models'), modelsTable(pricing), h('p', { class: 'hint' }, cost)),
    h('section', { class: 'card' }, h('h2', {}, 'Packages'), h('div', { class: 'tiles' }, ...packages)),
  ];
}

export function pricingPage(context: PageContext): HTMLElement {
  const body = h('div', {}, h('p', {}, 'Loading…'));
  loadPricing().then(
    (pricing) => !context.signal.aborted && fill(body, ...pricingView(pricing)),
    (error: unknown) => !context.signal.aborted && fill(body, notice('error', `Could not load pricing: ${errorText(error)}`)),
  );
  return h('div', { class: 'page pricing' }, h('h1', {}, 'Pricing'), body);
}
