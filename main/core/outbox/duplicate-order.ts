import type { ServiceError } from '../../../shared/errors.js';

/**
 * Is this the service's "duplicate clinicOrderId" rejection? The contract says a second create with the same
 * clinicOrderId is a 400; its wording is not published, so this looks for "duplicate" or "already exists" next
 * to the clinic order id, in the message or in a field error (`prescription.clinicOrderId`, HL7's `ORC-2`).
 */
export function isDuplicateClinicOrderId(error: ServiceError): boolean {
  if (error.kind !== 'rejected' || error.status !== 400) return false;
  const duplicate = /duplicate|already exists|already been used|not unique/i;
  const aboutTheId = /clinic\s*order\s*id|clinicorderid|orc-2/i;
  if (duplicate.test(error.message) && aboutTheId.test(error.message)) return true;
  return error.fields.some(
    (field) => aboutTheId.test(field.field) && (duplicate.test(field.message) || duplicate.test(error.message)),
  );
}
