import { ContractError, type ServiceError } from '../../../shared/errors.js';
import {
  MAX_LOOKUP_RANGE_DAYS,
  MAX_LOOKUP_RECORDS,
  type LookedUpOrder,
  type OrderLookupQuery,
  type OrderLookupResult,
} from '../../../shared/service-lookup.js';
import { namesAnotherClinic, type StatusRecord } from '../../../shared/status.js';
import type { CallOutcome, OrderServiceClient } from '../service/client.js';
import { saysNoSuchOrder } from '../service/no-such-order.js';
import type { Store } from '../store/store.js';
import { addDays, dateWindows, type DateWindow } from '../tracking/date-windows.js';
import { courierCodeOf } from '../tracking/order-courier.js';

/**
 * Looks orders up on the service for the admin, whether this install sent them or not. Reads only: nothing is
 * stored, so looking at another system's order cannot change what the outbox or the poller do.
 */

type Found = { records: StatusRecord[]; error: ServiceError | null };

/**
 * A single-order lookup the service answered "no such order" (`saysNoSuchOrder`) found nothing: an answer, not a
 * failure. Any other refusal is shown as one: a proxy's 404 page, a bare "Not Found" (a moved API) or a 400 about
 * the clinic code said nothing about the order, yet before, every 400 and 404 showed "No order with …".
 */
function single(outcome: CallOutcome<StatusRecord>): Found {
  if (outcome.ok) return { records: [outcome.value], error: null };
  if (saysNoSuchOrder(outcome.error)) return { records: [], error: null };
  return { records: [], error: outcome.error };
}

function many(outcome: CallOutcome<StatusRecord[]>): Found {
  return outcome.ok ? { records: outcome.value, error: null } : { records: [], error: outcome.error };
}

/** Asked within one clinic: a record naming another (a service that ignored the filter) is not an answer. */
function inClinic(found: Found, clinicCode: string): Found {
  return { ...found, records: found.records.filter((record) => !namesAnotherClinic(record, clinicCode)) };
}

/** The windows a dispatch-date range is asked in, or a plain refusal when the range cannot be asked for. */
export function lookupWindows(startDate: string, endDate: string): DateWindow[] {
  if (endDate < startDate) {
    throw new ContractError({ code: 'invalid-input', message: 'the end date is before the start date' });
  }
  if (addDays(startDate, MAX_LOOKUP_RANGE_DAYS - 1) < endDate) {
    throw new ContractError({
      code: 'invalid-input',
      message: `a lookup covers at most ${MAX_LOOKUP_RANGE_DAYS} days; choose a shorter range`,
    });
  }
  return dateWindows(startDate, endDate);
}

export async function lookUpOrders(
  store: Store,
  environmentId: string,
  client: OrderServiceClient,
  query: OrderLookupQuery,
): Promise<OrderLookupResult> {
  let windows: DateWindow[] = [];
  let found: Found;
  switch (query.by) {
    case 'pharmacyOrderId':
      found = single(await client.status(query.pharmacyOrderId));
      break;
    case 'clinicOrderId':
      found =
        query.clinicCode !== undefined
          ? inClinic(
              many(
                await client.statusWithClinicCode({ clinicCode: query.clinicCode, clinicOrderId: query.clinicOrderId }),
              ),
              query.clinicCode,
            )
          : single(await client.statusByClinicOrderNumber(query.clinicOrderId));
      break;
    case 'dispatchDate': {
      windows = lookupWindows(query.startDate, query.endDate);
      found = { records: [], error: null };
      // One call per window, in order; a failure stops there and keeps what came before, and so does a page's worth.
      for (const [asked, window] of windows.entries()) {
        const outcome = await client.statusByDateRange(window);
        if (!outcome.ok) {
          found.error = outcome.error;
          break;
        }
        found.records.push(...outcome.value);
        if (found.records.length > MAX_LOOKUP_RECORDS) {
          windows = windows.slice(0, asked + 1);
          break;
        }
      }
      break;
    }
  }
  // Never more than a page: the rest is the service's to list again for a narrower range.
  const truncated = found.records.length > MAX_LOOKUP_RECORDS;
  return {
    windows,
    records: found.records.slice(0, MAX_LOOKUP_RECORDS).map((record) => toLookedUp(store, environmentId, record)),
    truncated,
    error: found.error,
  };
}

function toLookedUp(store: Store, environmentId: string, record: StatusRecord): LookedUpOrder {
  const pharmacyId = record.pharmacyOrderId === null ? NaN : Number(record.pharmacyOrderId);
  const local =
    Number.isSafeInteger(pharmacyId) && pharmacyId > 0
      ? store.orders.findByPharmacyOrderId(environmentId, pharmacyId)
      : undefined;
  return {
    clinicOrderId: record.clinicOrderId ?? null,
    pharmacyOrderId: record.pharmacyOrderId,
    orderStatus: record.orderStatus ?? null,
    dispatchDate: record.dispatchDate ?? null,
    trackingId: record.trackingId ?? null,
    cancelReason: record.cancelReason ?? null,
    localOrderId: local?.id ?? null,
    // Sent from here: the order names its courier, so its tracking id can link to the courier's page.
    courierCode: local
      ? courierCodeOf(local.route, local.requestBody, store.environments.get(environmentId)?.codeLists)
      : null,
  };
}
