/** Hash routes (#/jobs, #/jobs/<id>, ...): the server only ever serves "/", never shadowing an API path. */

export interface PageContext {
  /** Aborted when the user leaves the page: stops polls and pending work. */
  signal: AbortSignal;
  params: Record<string, string>;
  query: URLSearchParams;
  navigate(hash: string): void;
}

export type Page = (context: PageContext) => HTMLElement;

export interface Route {
  pattern: RegExp;
  names: string[];
  page: Page;
  nav: string;
}

export function route(path: string, page: Page, nav: string): Route {
  const names: string[] = [];
  const pattern = new RegExp(`^${path.replace(/:(\w+)/g, (_match, name: string) => (names.push(name), '([^/]+)'))}$`);
  return { pattern, names, page, nav };
}

export function startRouter(outlet: HTMLElement, routes: Route[], onRoute: (nav: string) => void): void {
  let controller = new AbortController();
  const navigate = (hash: string) => {
    if (location.hash === hash) render();
    else location.hash = hash;
  };

  function render(): void {
    controller.abort();
    controller = new AbortController();
    const [path, search = ''] = (location.hash.replace(/^#/, '') || '/new').split('?');
    const match = routes.map((candidate) => ({ candidate, found: candidate.pattern.exec(path) })).find(({ found }) => found) ?? { candidate: routes[0], found: null };
    const params = Object.fromEntries(match.candidate.names.map((name, index) => [name, decodedOrAsIs(match.found?.[index + 1] ?? '')]));
    onRoute(match.candidate.nav);
    outlet.replaceChildren(match.candidate.page({ signal: controller.signal, params, query: new URLSearchParams(search), navigate }));
    outlet.focus({ preventScroll: true });
  }

  window.addEventListener('hashchange', render);
  render();
}

/** Waits, or returns early (false) when the page is left. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => resolve(true), ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve(false)), { once: true });
  });
}

/** a hash's part decoded; a malformed escape (`%E0%A4%A`) as it is, rather than a URIError that left the page unrendered */
function decodedOrAsIs(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
