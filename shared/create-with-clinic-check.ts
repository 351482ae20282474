import { regexes } from 'zod';
import { DMD_CODE_PATTERN } from './dmd.js';

/**
 * A hand-written check that a body passes the shared `createWithClinicV1Schema` (orders.ts), for the hot paths: the
 * import's common case, and the service client's check of each stored body before it is sent. For the import: zod's parse builds a context, an output copy and issue lists for every order, about three times the
 * cost of a raw CSV parse for 50,000 orders; this reads each field once and allocates nothing.
 *
 * It may only say "valid" when the schema would: `true` means the schema accepts the body, `false` only "ask the
 * schema" (the caller then runs zod, which also gives the messages). So where in doubt it says false: integers must
 * be safe integers; strings with white space at either end are measured after `trim()` exactly as the schema does;
 * a string longer than a limit in UTF-16 units is left to zod, which then counts code points. create-with-clinic-check.property.test.ts checks it against the schema on generated valid and broken bodies, and
 * that it covers every key of the schema; a change to the schema must be made here too, or that test fails.
 */

type Obj = Record<string, unknown>;

const COUNTRY = /^[A-Z]{3}$/;
const DATE = regexes.date;

const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `z.string().trim().min(1).max(max)`. */
function text(value: unknown, max: number): boolean {
  if (typeof value !== 'string') return false;
  const length = value.length;
  if (length === 0) return false;
  const first = value.charCodeAt(0);
  const last = value.charCodeAt(length - 1);
  // Printable ASCII at both ends: trim() would remove nothing.
  if (first > 32 && first < 127 && last > 32 && last < 127) return length <= max;
  const trimmed = value.trim().length;
  return trimmed >= 1 && trimmed <= max;
}

/** `z.string().max(max).nullish()`. */
const optionalText = (value: unknown, max: number): boolean =>
  value === undefined || value === null || (typeof value === 'string' && value.length <= max);

/** `z.number().int()` with a lower bound, `.nullish()` when `optional`. */
function int(value: unknown, min: number, optional: boolean): boolean {
  if (value === undefined || value === null) return optional;
  return Number.isSafeInteger(value) && (value as number) >= min;
}

/** `z.number().nonnegative().nullish()`. */
const optionalAmount = (value: unknown): boolean =>
  value === undefined || value === null || (Number.isFinite(value) && (value as number) >= 0);

const country = (value: unknown): boolean => typeof value === 'string' && COUNTRY.test(value);

/** `dmdCodeSchema`: a digit string, or a positive safe integer. */
const dmdCode = (value: unknown): boolean =>
  typeof value === 'string' ? DMD_CODE_PATTERN.test(value) : Number.isSafeInteger(value) && (value as number) > 0;

function address(value: unknown): boolean {
  if (!isObject(value)) return false;
  return (
    text(value.address1, 200) &&
    optionalText(value.address2, 200) &&
    text(value.city, 100) &&
    optionalText(value.county, 100) &&
    text(value.postCode, 16) &&
    country(value.countryCode)
  );
}

function item(value: unknown): boolean {
  if (!isObject(value)) return false;
  return (
    int(value.productId, 0, true) &&
    dmdCode(value.dmdCode) &&
    int(value.pack, 1, true) &&
    text(value.medication, 500) &&
    text(value.dosageInstructions, 1000) &&
    int(value.quantity, 1, false)
  );
}

/** True only if `createWithClinicV1Schema.safeParse(body).success` would be true. */
export function passesCreateWithClinicV1(body: unknown): boolean {
  if (!isObject(body)) return false;
  const { customer, prescription, prescribedItems, prescribingDoctor, clinicInformation: clinic } = body;
  if (
    !isObject(customer) ||
    !int(customer.clinicAccountNumber, Number.MIN_SAFE_INTEGER, true) ||
    !text(customer.title, 20) ||
    !text(customer.firstName, 100) ||
    !text(customer.surname, 100) ||
    typeof customer.dateOfBirth !== 'string' ||
    !DATE.test(customer.dateOfBirth) ||
    !text(customer.gender, 20) ||
    !optionalText(customer.telephone, 40) ||
    !optionalText(customer.email, 254)
  ) {
    return false;
  }
  if (!address(body.homeAddress) || !address(body.deliveryAddress)) return false;
  if (
    !isObject(prescription) ||
    !text(prescription.clinicOrderId, 64) ||
    !optionalAmount(prescription.clinicOrderValue) ||
    !text(prescription.paymentType, 40) ||
    !int(prescription.repeatsAllowed, 0, true) ||
    !text(prescription.courierCode, 20) ||
    !country(prescription.currencyCode)
  ) {
    return false;
  }
  if (!Array.isArray(prescribedItems) || prescribedItems.length === 0) return false;
  for (const entry of prescribedItems) if (!item(entry)) return false;
  if (
    !isObject(prescribingDoctor) ||
    !text(prescribingDoctor.registrationNumber, 40) ||
    !text(prescribingDoctor.prescriberName, 200)
  ) {
    return false;
  }
  return (
    isObject(clinic) &&
    text(clinic.clinicCode, 64) &&
    text(clinic.name, 200) &&
    text(clinic.address1, 200) &&
    optionalText(clinic.address2, 200) &&
    optionalText(clinic.address3, 200) &&
    optionalText(clinic.address4, 200) &&
    text(clinic.postcode, 16) &&
    country(clinic.countryCode) &&
    optionalText(clinic.contactNumber, 40) &&
    optionalText(clinic.contactEmail, 254) &&
    int(clinic.prescriberFeeTypeId, 0, true) &&
    optionalAmount(clinic.prescriberFee) &&
    optionalText(body.affiliateId, 64)
  );
}
