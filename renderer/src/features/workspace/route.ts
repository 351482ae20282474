/** The workspace's sections and where the address bar's fragment points (`#/orders/42`). */

export const SECTIONS = [
  { id: 'submissions', label: 'Submissions' },
  { id: 'import', label: 'Import' },
  { id: 'orders', label: 'Orders' },
  { id: 'signin', label: 'Sign-in' },
  { id: 'log', label: 'Log' },
  { id: 'lookups', label: 'Lookups' },
  { id: 'settings', label: 'Settings' },
] as const;

export type SectionId = (typeof SECTIONS)[number]['id'];

export interface Route {
  section: SectionId;
  /** The order open in the orders section. */
  orderId?: number;
  /** A product search the lookups section runs on opening (`#/lookups?search=…`, e.g. from the preview). */
  search?: string;
}

export const DEFAULT_ROUTE: Route = { section: 'submissions' };

export function parseRoute(hash: string): Route {
  const [, section, id, query] = /^#\/([a-z]+)(?:\/(\d{1,15}))?\/?(?:\?(.*))?$/.exec(hash) ?? [];
  const known = SECTIONS.find((candidate) => candidate.id === section);
  if (!known) return DEFAULT_ROUTE;
  if (known.id === 'orders' && id !== undefined) return { section: 'orders', orderId: Number(id) };
  const search = known.id === 'lookups' ? new URLSearchParams(query ?? '').get('search')?.trim().slice(0, 100) : '';
  if (search) return { section: 'lookups', search };
  return { section: known.id };
}

export function routeHref(route: Route): string {
  if (route.search) return `#/${route.section}?${new URLSearchParams({ search: route.search }).toString()}`;
  return route.orderId !== undefined ? `#/${route.section}/${route.orderId}` : `#/${route.section}`;
}
