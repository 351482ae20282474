import type { ServiceError } from '../../../shared/errors.js';

/**
 * Statuses a duplicate may come with: the contract's 400, and 409 Conflict / 422 that other services (and
 * frameworks) use for "already exists", and a 2xx whose body says it did not do it (`{"success": false}`: the
 * client reads that as a refusal). Missing one after a lost answer marked an order that exists `rejected`.
 */
const isDuplicateStatus = (status: number): boolean =>
  status === 400 || status === 409 || status === 422 || (status >= 200 && status < 300);

const DUPLICATE = /duplicate|already exists|already been used|not unique/i;
const ABOUT_THE_ID = /clinic\s*order\s*id|clinicorderid|orc-2/i;

/** Whether a message says "duplicate" or "already exists" of the clinic order id. */
const namesDuplicateId = (message: string): boolean => DUPLICATE.test(message) && ABOUT_THE_ID.test(message);

/**
 * Is this the service's "duplicate clinicOrderId" rejection? The contract says a second create with the same
 * clinicOrderId is a 400; its wording is not published, so this looks for "duplicate" or "already exists" next
 * to the clinic order id, in the message or in a field error (`prescription.clinicOrderId`, HL7's `ORC-2`).
 */
export function isDuplicateClinicOrderId(error: ServiceError): boolean {
  if (error.kind !== 'rejected' || !isDuplicateStatus(error.status)) return false;
  if (namesDuplicateId(error.message)) return true;
  return error.fields.some(
    (field) => ABOUT_THE_ID.test(field.field) && (DUPLICATE.test(field.message) || DUPLICATE.test(error.message)),
  );
}

/**
 * After an earlier send of this order that may have landed, is this answer that order? The duplicate's words, or any
 * 400, 409, 422 or 2xx refusal that names no field but the clinic order id: the contract does not publish the duplicate's words,
 * and a service that says "Order already exists for this clinic", "ClinicOrderId must be unique", "has already been
 * taken" or a bare "Conflict" left an order it holds marked rejected (and a cancel of it "withdrawn, never sent").
 * An answer naming another field is about the order's content, which the earlier send had too. Looked up, it is
 * settled either way.
 */
export function mayBeTheEarlierSend(error: ServiceError): boolean {
  if (isDuplicateClinicOrderId(error)) return true;
  return (
    error.kind === 'rejected' &&
    isDuplicateStatus(error.status) &&
    error.fields.every((field) => field.field === '' || ABOUT_THE_ID.test(field.field))
  );
}

/**
 * Whether a create's stored answer was such a rejection not worded as a duplicate (what `mayBeTheEarlierSend` looks
 * up besides the duplicate): the service never said it has the order, so a lookup that keeps missing it is believed
 * after a few tries and the order held for a person (reconcile.ts); a faulty or hostile service answering 409 to
 * every resend kept an order it never had in doubt for good, never sent and never shown to a person
 * (docs/security.md, finding 47).
 */
export function wasBareConflict(attempt: { httpStatus: number | null; errorMessage: string | null }): boolean {
  const status = attempt.httpStatus;
  if (status === null || !isDuplicateStatus(status)) return false;
  // A 2xx counts only as a refusal (with its message); a create that succeeded has none.
  if (status < 300 && attempt.errorMessage === null) return false;
  return !namesDuplicateId(attempt.errorMessage ?? '');
}
