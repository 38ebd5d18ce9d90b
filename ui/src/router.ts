// Views by location hash (`#/library/news`, `#/documents/12?sentence=40`, ...). Each route
// names the navigation section it belongs to and a render function that fills the main area.
// A render gets an AbortSignal that fires when the user moves on, so a slow answer for a view
// that is gone is dropped instead of drawn over the next one.

export interface RouteContext {
  /** The view's area; empty when the render starts. */
  outlet: HTMLElement;
  /** The route pattern's captured groups, URI-decoded. */
  params: string[];
  /** The part of the hash after `?`. */
  query: URLSearchParams;
  /** Aborted when another view replaces this one. */
  signal: AbortSignal;
}

export interface Route {
  /** Matched against the hash without `#` and query, e.g. `/documents/12`. */
  pattern: RegExp;
  /** The navigation section to mark as current. */
  section: string;
  render(context: RouteContext): void | Promise<void>;
}

/** A hash for a path and query values (empty values left out). */
export function href(path: string, query: Record<string, string | number | string[] | undefined> = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== '') search.append(key, String(item));
    }
  }
  const tail = search.toString();
  return `#${path}${tail ? `?${tail}` : ''}`;
}

/** A thrown value as text: an Error's or a command error's message, not "[object Object]". */
function describeFailure(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'message' in error) return String(error.message);
  return String(error);
}

/** Goes to a hash (the router renders it). */
export function navigate(hash: string): void {
  if (location.hash === hash) {
    refresh();
  } else {
    location.hash = hash;
  }
}

let routes: Route[] = [];
let fallback = '#/library';
let outlet: HTMLElement | null = null;
let onSection: (section: string) => void = () => {};
let current: AbortController | null = null;

/** Renders the current hash again (after data changed). */
export function refresh(): void {
  if (!outlet) return;
  current?.abort();
  const controller = new AbortController();
  current = controller;

  const raw = location.hash.replace(/^#/, '');
  const mark = raw.indexOf('?');
  const path = mark < 0 ? raw : raw.slice(0, mark);
  const search = mark < 0 ? '' : raw.slice(mark + 1);
  for (const route of routes) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    onSection(route.section);
    const view = document.createElement('div');
    view.className = 'view';
    outlet.replaceChildren(view);
    const params = match.slice(1).map((part) => decodeURIComponent(part ?? ''));
    void Promise.resolve(
      route.render({ outlet: view, params, query: new URLSearchParams(search), signal: controller.signal }),
    ).catch((error: unknown) => {
      if (controller.signal.aborted) return;
      view.replaceChildren(document.createTextNode(`This view failed: ${describeFailure(error)}`));
    });
    return;
  }
  location.replace(fallback);
}

/** Starts routing: renders into `target` now and on every hash change. */
export function startRouter(
  target: HTMLElement,
  table: Route[],
  options: { fallback: string; onSection(section: string): void },
): void {
  outlet = target;
  routes = table;
  fallback = options.fallback;
  onSection = options.onSection;
  window.addEventListener('hashchange', refresh);
  refresh();
}
