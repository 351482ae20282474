import type { z } from 'zod';
import type { FieldError } from '../shared/errors.js';
import { COURIERS } from './catalogue.js';
import { badRequest, HttpError } from './http-io.js';

/** The service's validation and business rules, as the sandbox applies them. */

export interface LockedOutPatient {
  surname: string;
  /** `YYYY-MM-DD`. */
  dateOfBirth: string;
}

/** A patient the sandbox always refuses unless told otherwise, so the 403 path can be tried by hand. */
export const DEFAULT_LOCKED_OUT_PATIENTS: readonly LockedOutPatient[] = [
  { surname: 'Lockhart', dateOfBirth: '1970-01-01' },
];

/** The UK and the Crown Dependencies: where a UK pharmacy delivers. */
export const DELIVERY_COUNTRIES: readonly string[] = ['GBR', 'JEY', 'GGY', 'IMN'];

export const VALIDATION_FAILED = 'One or more validation errors occurred.';

export function fieldErrorsOf(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    field: issue.path.map(String).join('.') || '(body)',
    message: issue.message,
  }));
}

/** Parses with a shared schema, or throws the 400 validation envelope naming each field. */
export function validate<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw badRequest(VALIDATION_FAILED, fieldErrorsOf(parsed.error));
  return parsed.data;
}

export function assertNotLockedOut(
  lockedOut: readonly LockedOutPatient[],
  patient: { surname: string | null; dateOfBirth: string | null },
): void {
  const surname = patient.surname?.trim().toLowerCase();
  const birth = patient.dateOfBirth?.slice(0, 10);
  if (!surname || !birth) return;
  if (lockedOut.some((p) => p.surname.toLowerCase() === surname && p.dateOfBirth === birth)) {
    throw new HttpError(403, 'Forbidden', {
      message: 'the patient is locked out: the pharmacy will not accept orders for them',
    });
  }
}

/** Business-rule 400s that are about one field; collected so the admin sees them all at once. */
export function assertBusinessRules(problems: Array<FieldError | null>): void {
  const found = problems.filter((p): p is FieldError => p !== null);
  if (found.length > 0) throw badRequest('The order breaks a business rule.', found);
}

export function countryProblem(field: string, countryCode: string | null | undefined): FieldError | null {
  if (!countryCode || DELIVERY_COUNTRIES.includes(countryCode)) return null;
  return {
    field,
    message: `invalid country ${countryCode}: the pharmacy delivers to ${DELIVERY_COUNTRIES.join(', ')}`,
  };
}

/** v1 courier codes are text (RMT24), v2 ones integers; either must name a courier the service offers. */
export function courierProblem(field: string, courierCode: string | number): FieldError | null {
  const known = COURIERS.some((c) =>
    typeof courierCode === 'number' ? c.v2Code === courierCode : c.courierCode === courierCode,
  );
  if (known) return null;
  const offered = COURIERS.map((c) =>
    typeof courierCode === 'number' ? `${c.v2Code} (${c.courierCode})` : c.courierCode,
  );
  return { field, message: `invalid courier ${courierCode}: use one of ${offered.join(', ')}` };
}

/** The v1 text courier code for either shape (tracking ids are per courier). */
export function courierTextOf(courierCode: string | number): string | null {
  const match = COURIERS.find((c) =>
    typeof courierCode === 'number' ? c.v2Code === courierCode : c.courierCode === courierCode,
  );
  return match?.courierCode ?? null;
}

/** Invoice-only orders skip the payment step: v1 says `Invoice`, v2 uses the default code 3. */
export const INVOICE_V2_PAYMENT_TYPE = 3;
export function isInvoice(paymentType: string | number): boolean {
  return typeof paymentType === 'number'
    ? paymentType === INVOICE_V2_PAYMENT_TYPE
    : paymentType.trim().toLowerCase() === 'invoice';
}

export const MAX_DATE_RANGE_DAYS = 3;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function dayNumber(field: string, value: string | null): number {
  if (!value) throw badRequest(VALIDATION_FAILED, [{ field, message: `${field} is required (YYYY-MM-DD)` }]);
  const time = Date.parse(`${value}T00:00:00Z`);
  if (!ISO_DATE.test(value) || Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== value) {
    throw badRequest(VALIDATION_FAILED, [{ field, message: `${field} must be a date as YYYY-MM-DD` }]);
  }
  return time / 86_400_000;
}

/** Dispatch-date range: both dates valid, start not after end, end at most 3 days after start. */
export function checkDateRange(
  startDate: string | null,
  endDate: string | null,
): { startDate: string; endDate: string } {
  const start = dayNumber('startDate', startDate);
  const end = dayNumber('endDate', endDate);
  if (end < start) throw badRequest(VALIDATION_FAILED, [{ field: 'endDate', message: 'endDate is before startDate' }]);
  if (end - start > MAX_DATE_RANGE_DAYS) {
    throw badRequest('The date range is too long.', {
      field: 'endDate',
      message: `the range may span at most ${MAX_DATE_RANGE_DAYS} days`,
    });
  }
  return { startDate: startDate!, endDate: endDate! };
}

/** A positive integer query parameter (an order id), or a 400 naming it. */
export function positiveIntParam(field: string, value: string | null): number {
  if (value === null || !/^\d{1,15}$/.test(value) || Number(value) < 1) {
    throw badRequest(VALIDATION_FAILED, [{ field, message: `${field} must be a positive whole number` }]);
  }
  return Number(value);
}
