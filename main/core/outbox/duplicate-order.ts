import type { ServiceError } from '../../../shared/errors.js';

/**
 * Statuses a duplicate may come with: the contract's 400, and 409 Conflict / 422 that other services (and
 * frameworks) use for "already exists". Missing one after a lost answer marked an order that exists `rejected`.
 */
const DUPLICATE_STATUSES: readonly number[] = [400, 409, 422];

const DUPLICATE = /duplicate|already exists|already been used|not unique/i;
const ABOUT_THE_ID = /clinic\s*order\s*id|clinicorderid|orc-2/i;

/**
 * Is this the service's "duplicate clinicOrderId" rejection? The contract says a second create with the same
 * clinicOrderId is a 400; its wording is not published, so this looks for "duplicate" or "already exists" next
 * to the clinic order id, in the message or in a field error (`prescription.clinicOrderId`, HL7's `ORC-2`).
 */
export function isDuplicateClinicOrderId(error: ServiceError): boolean {
  if (error.kind !== 'rejected' || !DUPLICATE_STATUSES.includes(error.status)) return false;
  if (DUPLICATE.test(error.message) && ABOUT_THE_ID.test(error.message)) return true;
  return error.fields.some(
    (field) => ABOUT_THE_ID.test(field.field) && (DUPLICATE.test(field.message) || DUPLICATE.test(error.message)),
  );
}

/**
 * After an earlier send of this order that may have landed, is this answer that order? The duplicate's words, or a
 * 409 Conflict that names no other field: a create has nothing else to conflict with, and a service that answers a
 * bare 409 (no body, or "Conflict") left an order it holds marked rejected. Looked up, it is settled either way.
 */
export function mayBeTheEarlierSend(error: ServiceError): boolean {
  if (isDuplicateClinicOrderId(error)) return true;
  return (
    error.kind === 'rejected' &&
    error.status === 409 &&
    error.fields.every((field) => field.field === '' || ABOUT_THE_ID.test(field.field))
  );
}

/**
 * Whether a create's stored answer was a 409 not worded as a duplicate (the bare one `mayBeTheEarlierSend` looks
 * up): the service never said it has the order, so a lookup that keeps missing it is believed after a few tries
 * (reconcile.ts); a faulty or hostile service answering 409 to every resend kept an order it never had in doubt
 * for good, never sent and never shown to a person (docs/security.md, finding 47).
 */
export function wasBareConflict(attempt: { httpStatus: number | null; errorMessage: string | null }): boolean {
  return attempt.httpStatus === 409 && !DUPLICATE.test(attempt.errorMessage ?? '');
}
