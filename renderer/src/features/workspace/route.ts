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
}

export const DEFAULT_ROUTE: Route = { section: 'submissions' };

export function parseRoute(hash: string): Route {
  const [, section, id] = /^#\/([a-z]+)(?:\/(\d{1,15}))?\/?$/.exec(hash) ?? [];
  const known = SECTIONS.find((candidate) => candidate.id === section);
  if (!known) return DEFAULT_ROUTE;
  if (known.id === 'orders' && id !== undefined) return { section: 'orders', orderId: Number(id) };
  return { section: known.id };
}

export function routeHref(route: Route): string {
  return route.orderId !== undefined ? `#/${route.section}/${route.orderId}` : `#/${route.section}`;
}
