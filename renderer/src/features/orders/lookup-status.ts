import type { OrderLookupResult } from '../../../../shared/service-lookup.js';
import { plural } from '../format/format-time.js';

/**
 * What a service lookup found, in one sentence. A lookup the service did not answer (signed out, down) found
 * nothing because it did not look: "No order found" there would tell the admin the order does not exist.
 */
export function lookupStatusText(result: Pick<OrderLookupResult, 'records' | 'windows' | 'truncated' | 'error'>) {
  const found = result.records.length;
  if (result.error) {
    return found === 0
      ? 'Not looked up: the service did not answer (above), so whether it has this order is not known.'
      : `${plural(found, 'order')} found before the service stopped answering (above); the rest of the range was not looked up.`;
  }
  const requests = result.windows.length > 1 ? ` in ${plural(result.windows.length, 'request')}` : '';
  const sentence = found === 0 ? `No order found${requests}.` : `${plural(found, 'order')} found${requests}.`;
  return result.truncated
    ? `${sentence} The service listed more: only the first ${found.toLocaleString('en-GB')} are shown; narrow the range to see the rest.`
    : sentence;
}
