/**
 * Where a courier's tracking page for a parcel is, by courier code (the code lists' v1 text). Only couriers listed
 * here get a link, only over https, and only for a tracking id of letters and digits: anything else is shown as
 * plain text, so a service answer can never make the app open an address it chose.
 */
const TRACKING_PAGES: Readonly<Record<string, string>> = {
  RMT24: 'https://www.royalmail.com/track-your-item#/tracking-results/{id}',
  RMT48: 'https://www.royalmail.com/track-your-item#/tracking-results/{id}',
  DPD: 'https://www.dpd.co.uk/apps/tracking/?reference={id}',
};

const TRACKING_ID = '[A-Za-z0-9]{1,64}';

export function trackingUrl(courierCode: string | null | undefined, trackingId: string | null | undefined) {
  if (!courierCode || !trackingId || !new RegExp(`^${TRACKING_ID}$`).test(trackingId)) return undefined;
  const template = Object.hasOwn(TRACKING_PAGES, courierCode) ? TRACKING_PAGES[courierCode] : undefined;
  if (!template) return undefined;
  const url = new URL(template.replace('{id}', encodeURIComponent(trackingId)));
  return url.protocol === 'https:' ? url.href : undefined;
}

const TRACKING_PAGE_PATTERNS = [...new Set(Object.values(TRACKING_PAGES))].map(
  (template) => new RegExp(`^${template.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&').replace('\\{id\\}', TRACKING_ID)}$`),
);

/**
 * Whether `url` is exactly a tracking page `trackingUrl` makes (a listed courier's https page for an id of letters
 * and digits): the desktop shell lets these, and no other address a page names, leave for the system browser.
 */
export function isTrackingPageUrl(url: string): boolean {
  return TRACKING_PAGE_PATTERNS.some((pattern) => pattern.test(url));
}
