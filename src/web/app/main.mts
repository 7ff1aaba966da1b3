/** The dashboard: header (navigation, API key) and the page of the current hash route. */
import { storedKey, storeKey } from './api.mjs';
import { h } from './dom.mjs';
import { jobPage } from './page-job.mjs';
import { jobsPage } from './page-jobs.mjs';
import { newJobPage } from './page-new-job.mjs';
import { pricingPage } from './page-pricing.mjs';
import { usagePage } from './page-usage.mjs';
import { route, startRouter } from './router.mjs';

const NAV: Array<[nav: string, href: string, label: string]> = [
  ['new', '#/new', 'New job'],
  ['jobs', '#/jobs', 'Jobs'],
  ['usage', '#/usage', 'Usage'],
  ['pricing', '#/pricing', 'Pricing'],
];

function keyForm(onChange: () => void): HTMLFormElement {
  const input = h('input', { type: 'password', name: 'api_key', placeholder: 'bd_live_…', autocomplete: 'off', spellcheck: 'false', 'aria-label': 'API key' });
  // the property, not the attribute: as an attribute the key was in the page's HTML for anything that serializes it
  input.value = storedKey();
  const state = h('span', { class: 'key-state', 'aria-live': 'polite' }, storedKey() ? 'key saved' : 'no key');
  const save = (key: string) => {
    storeKey(key);
    input.value = key;
    state.textContent = key ? 'key saved' : 'no key';
    onChange();
  };
  return h(
    'form',
    { class: 'key-form', onsubmit: (event: Event) => (event.preventDefault(), save(input.value.trim())) },
    input,
    h('button', { type: 'submit' }, 'Save key'),
    h('button', { type: 'button', class: 'link', onclick: () => save('') }, 'Forget'),
    state,
  );
}

function main(): void {
  const links = NAV.map(([nav, href, label]) => h('a', { href, 'data-nav': nav }, label));
  const outlet = h('main', { id: 'main', tabindex: -1 });
  const rerender = () => window.dispatchEvent(new HashChangeEvent('hashchange'));
  document.body.replaceChildren(
    h('header', { class: 'top' }, h('a', { class: 'brand', href: '#/new' }, h('span', { class: 'logo', 'aria-hidden': 'true' }), 'Backdrop'), h('nav', { class: 'nav', 'aria-label': 'Main' }, ...links), keyForm(rerender)),
    outlet,
    h('footer', {}, h('a', { href: '/docs' }, 'API docs'), ' · ', h('a', { href: '/openapi.json' }, 'OpenAPI'), ' · ', h('a', { href: '/health' }, 'Health')),
  );
  startRouter(
    outlet,
    [route('/new', newJobPage, 'new'), route('/jobs', jobsPage, 'jobs'), route('/jobs/:id', jobPage, 'jobs'), route('/usage', usagePage, 'usage'), route('/pricing', pricingPage, 'pricing')],
    (nav) => links.forEach((link) => link.setAttribute('aria-current', link.dataset.nav === nav ? 'page' : 'false')),
  );
}

main();
