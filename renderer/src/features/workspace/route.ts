/** The workspace's sections and where the address bar's fragment points (`#/orders/42`). */

export const SECTIONS = [
  { id: 'submissions', label: 'Submissions' },
  { id: 'import', label: 'Import' },
  { id: 'intake', label: 'Intake' },
  { id: 'orders', label: 'Orders' },
  { id: 'signin', label: 'Sign-in' },
  { id: 'log', label: 'Log' },
  { id: 'lookups', label: 'Lookups' },
  { id: 'settings', label: 'Settings' },
] as const;

export type SectionId = (typeof SECTIONS)[number]['id'];

/** An order of a staged batch: where the preview opens (`#/import?batch=…&order=…`), or where Lookups returns. */
export interface BatchPlace {
  batchId: number;
  /** The staged order the preview opens at; absent: the top of the batch. */
  stagedOrderId?: number;
}

export interface Route {
  section: SectionId;
  /** The order open in the orders section. */
  orderId?: number;
  /** A product search the lookups section runs on opening (`#/lookups?search=…`, e.g. from the preview). */
  search?: string;
  /** Import: the batch preview to open. Lookups: the batch preview it was opened from ("Back to batch N"). */
  batch?: BatchPlace;
}

export const DEFAULT_ROUTE: Route = { section: 'submissions' };

/** A database id as the fragment carries it (digits only, no leading zero, at most 15 of them), else undefined. */
function idParam(params: URLSearchParams, name: string): number | undefined {
  const value = params.get(name);
  return value !== null && /^[1-9]\d{0,14}$/.test(value) ? Number(value) : undefined;
}

function batchPlace(params: URLSearchParams): BatchPlace | undefined {
  const batchId = idParam(params, 'batch');
  if (batchId === undefined) return undefined;
  const stagedOrderId = idParam(params, 'order');
  return stagedOrderId === undefined ? { batchId } : { batchId, stagedOrderId };
}

export function parseRoute(hash: string): Route {
  const [, section, id, query] = /^#\/([a-z]+)(?:\/(\d{1,15}))?\/?(?:\?(.*))?$/.exec(hash) ?? [];
  const known = SECTIONS.find((candidate) => candidate.id === section);
  if (!known) return DEFAULT_ROUTE;
  if (known.id === 'orders' && id !== undefined) return { section: 'orders', orderId: Number(id) };
  const params = new URLSearchParams(query ?? '');
  if (known.id === 'import') {
    const batch = batchPlace(params);
    return batch ? { section: 'import', batch } : { section: 'import' };
  }
  if (known.id === 'lookups') {
    const search = params.get('search')?.trim().slice(0, 100);
    const batch = batchPlace(params);
    return { section: 'lookups', ...(search ? { search } : {}), ...(batch ? { batch } : {}) };
  }
  return { section: known.id };
}

export function routeHref(route: Route): string {
  if (route.orderId !== undefined) return `#/${route.section}/${route.orderId}`;
  const params = new URLSearchParams();
  if (route.search) params.set('search', route.search);
  if (route.batch) {
    params.set('batch', String(route.batch.batchId));
    if (route.batch.stagedOrderId !== undefined) params.set('order', String(route.batch.stagedOrderId));
  }
  const query = params.toString();
  return query ? `#/${route.section}?${query}` : `#/${route.section}`;
}

/** Two batch places are the same batch opened at the same order (or both absent). */
export function samePlace(a: BatchPlace | undefined, b: BatchPlace | undefined): boolean {
  return a?.batchId === b?.batchId && a?.stagedOrderId === b?.stagedOrderId;
}

/**
 * The Import screen's address for the preview it shows: the open batch, and the order it was opened at only
 * while that opening is what is on screen (another batch, or a new import, drops it).
 */
export function importRoute(open: BatchPlace | undefined): Route {
  return open ? { section: 'import', batch: open } : { section: 'import' };
}

/**
 * The address a screen's `route` puts in place of `hash`, or undefined to leave it: when it already says that, or
 * when it names another section (the admin has just left, and that screen is about to go: a late answer, such as an
 * import finishing as the admin clicks away, must not take them back).
 */
export function replacedHash(hash: string, route: Route): string | undefined {
  const href = routeHref(route);
  if (hash === href || parseRoute(hash).section !== route.section) return undefined;
  return href;
}
