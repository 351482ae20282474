import type { ServiceErrorKind } from '../../../shared/errors.js';
import type { OrderRoute, OrderState } from './order-state.js';
import { unpackRequestBody } from './request-body-codec.js';

/**
 * An order as the store hands it out, and how a row of `orders` becomes one: shared by the parts of `store.orders`
 * (order-writes, order-claims, order-queries, order-views; composed in orders-repo.ts).
 */

export interface OrderItem {
  /** dm+d code as digits (up to 18: beyond JavaScript's safe integers). */
  dmdCode: string;
  productId: number | null;
  medication: string;
  quantity: number;
}

export interface OrderError {
  kind: ServiceErrorKind;
  message: string;
  field: string | null;
}

/**
 * Lookups in a row at which the service did not find an order it created (migration 026): how many, since when,
 * and when the order was flagged for a person (null until main/core/tracking/lost-at-service.ts's rule is met).
 */
export interface NotFoundRun {
  lookups: number;
  since: string;
  flaggedAt: string | null;
}

/**
 * A record a lookup listed for an order that may be it but is not taken as it (migration 027;
 * main/core/tracking/listed-differently.ts): its ids as the service gave them, and when it first listed them so.
 */
export interface ListedDifferently {
  clinicOrderId: string;
  pharmacyOrderId: string | null;
  at: string;
}

export interface OrderRecord {
  id: number;
  batchId: number;
  environmentId: string;
  clinicCode: string;
  clinicOrderId: string;
  route: OrderRoute;
  requestBody: string;
  state: OrderState;
  pharmacyOrderId: number | null;
  remoteStatus: string | null;
  remoteStatusAt: string | null;
  dispatchDate: string | null;
  trackingId: string | null;
  lastError: OrderError | null;
  /** Create attempts made so far. */
  attempts: number;
  /** When a queued order may be sent (again); null means now. */
  nextAttemptAt: string | null;
  /** The service's "no such order" answers in a row, null when the last lookup found it (or none was made). */
  notFound: NotFoundRun | null;
  /** The last lookup listed a record that may be this order under other ids (not taken as it); null otherwise. */
  listedDifferently: ListedDifferently | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * A row as ORDER_COLUMNS reads it: the last error in three columns, and the body packed (retention, migration 020)
 * or as text.
 */
export interface OrderRow extends Omit<OrderRecord, 'lastError' | 'notFound' | 'listedDifferently'> {
  requestBodyPacked: Uint8Array | null;
  lastErrorKind: ServiceErrorKind | null;
  lastErrorMessage: string | null;
  lastErrorField: string | null;
  notFoundLookups: number;
  notFoundSince: string | null;
  notFoundFlaggedAt: string | null;
  listedClinicOrderId: string | null;
  listedPharmacyOrderId: string | null;
  listedDifferentlyAt: string | null;
}

export const ORDER_COLUMNS = `id, batch_id AS batchId, environment_id AS environmentId, clinic_code AS clinicCode,
  clinic_order_id AS clinicOrderId, route, request_body AS requestBody, request_body_packed AS requestBodyPacked, state, pharmacy_order_id AS pharmacyOrderId,
  remote_status AS remoteStatus, remote_status_at AS remoteStatusAt, dispatch_date AS dispatchDate,
  tracking_id AS trackingId, last_error_kind AS lastErrorKind, last_error_message AS lastErrorMessage,
  last_error_field AS lastErrorField, attempts, next_attempt_at AS nextAttemptAt, not_found_lookups AS notFoundLookups,
  not_found_since AS notFoundSince, not_found_flagged_at AS notFoundFlaggedAt,
  listed_clinic_order_id AS listedClinicOrderId, listed_pharmacy_order_id AS listedPharmacyOrderId,
  listed_differently_at AS listedDifferentlyAt, created_at AS createdAt, updated_at AS updatedAt`;

/** The request body exactly as it was stored: unpacked when retention packed it (`PackedBodyError` if damaged). */
export function requestBodyOf(row: { id: number; requestBody: string; requestBodyPacked: Uint8Array | null }): string {
  return row.requestBodyPacked === null ? row.requestBody : unpackRequestBody(row.requestBodyPacked, row.id);
}

export function toRecord(row: OrderRow): OrderRecord {
  const {
    lastErrorKind,
    lastErrorMessage,
    lastErrorField,
    notFoundLookups,
    notFoundSince,
    notFoundFlaggedAt,
    listedClinicOrderId,
    listedPharmacyOrderId,
    listedDifferentlyAt,
    requestBodyPacked: _packed,
    ...rest
  } = row;
  return {
    ...rest,
    requestBody: requestBodyOf(row),
    lastError:
      lastErrorKind === null ? null : { kind: lastErrorKind, message: lastErrorMessage ?? '', field: lastErrorField },
    notFound:
      notFoundSince === null ? null : { lookups: notFoundLookups, since: notFoundSince, flaggedAt: notFoundFlaggedAt },
    listedDifferently:
      listedClinicOrderId === null || listedDifferentlyAt === null
        ? null
        : { clinicOrderId: listedClinicOrderId, pharmacyOrderId: listedPharmacyOrderId, at: listedDifferentlyAt },
  };
}
