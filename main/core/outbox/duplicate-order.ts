import type { ServiceError } from '../../../shared/errors.js';

/**
 * Statuses a duplicate may come with: the contract's 400, and 409 Conflict / 422 that other services (and
 * frameworks) use for "already exists". Missing one after a lost answer marked an order that exists `rejected`.
 */
const DUPLICATE_STATUSES: readonly number[] = [400, 409, 422];

/**
 * Is this the service's "duplicate clinicOrderId" rejection? The contract says a second create with the same
 * clinicOrderId is a 400; its wording is not published, so this looks for "duplicate" or "already exists" next
 * to the clinic order id, in the message or in a field error (`prescription.clinicOrderId`, HL7's `ORC-2`).
 */
export function isDuplicateClinicOrderId(error: ServiceError): boolean {
  if (error.kind !== 'rejected' || !DUPLICATE_STATUSES.includes(error.status)) return false;
  const duplicate = /duplicate|already exists|already been used|not unique/i;
  const aboutTheId = /clinic\s*order\s*id|clinicorderid|orc-2/i;
  if (duplicate.test(error.message) && aboutTheId.test(error.message)) return true;
  return error.fields.some(
    (field) => aboutTheId.test(field.field) && (duplicate.test(field.message) || duplicate.test(error.message)),
  );
}
