import type { OrderLookupQuery, OrderLookupResult } from '../../../../shared/service-lookup.js';
import { formatDate } from '../format/format-date.js';
import { plural } from '../format/format-time.js';

/** What a lookup asked, and of which environment: kept with its result, so the sentence names what was searched. */
export interface LookedFor {
  query: OrderLookupQuery;
  environmentName: string;
}

/**
 * What a service lookup found, in one sentence. A lookup the service did not answer (signed out, down) found
 * nothing because it did not look: "No order" there would tell the admin the order does not exist. When it did
 * look and found none, the sentence says what it looked for and where, so a typo or the wrong environment shows.
 */
export function lookupStatusText(
  result: Pick<OrderLookupResult, 'records' | 'windows' | 'truncated' | 'error'>,
  looked: LookedFor,
  day: (isoDate: string) => string = formatDate,
) {
  const found = result.records.length;
  if (result.error) {
    return found === 0
      ? 'Not looked up: the service did not answer (above), so whether it has this order is not known.'
      : `${plural(found, 'order')} found before the service stopped answering (above); the rest of the range was not looked up.`;
  }
  const requests = result.windows.length > 1 ? plural(result.windows.length, 'request') : '';
  if (found === 0) {
    const where = `in environment "${looked.environmentName}"`;
    return `${notFound(looked.query, day)} ${where}${requests ? ` (asked in ${requests})` : ''}.`;
  }
  const sentence = `${plural(found, 'order')} found${requests ? ` in ${requests}` : ''}.`;
  return result.truncated
    ? `${sentence} The service listed more: only the first ${found.toLocaleString('en-GB')} are shown; narrow the range to see the rest.`
    : sentence;
}

function notFound(query: OrderLookupQuery, day: (isoDate: string) => string): string {
  switch (query.by) {
    case 'pharmacyOrderId':
      return `No order with pharmacy order id ${query.pharmacyOrderId}`;
    case 'clinicOrderId':
      return query.clinicCode === undefined
        ? `No order with clinic order id ${query.clinicOrderId} (any clinic)`
        : `No order with clinic order id ${query.clinicOrderId} and clinic code ${query.clinicCode}`;
    case 'dispatchDate':
      return `No order dispatched from ${day(query.startDate)} to ${day(query.endDate)}`;
  }
}
