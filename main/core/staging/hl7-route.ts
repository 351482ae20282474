import { z } from 'zod';
import { createWithClinicV1Schema } from '../../../shared/orders.js';
import type { Problem } from '../model/imported-order.js';

/**
 * What the HL7 forward route checks. The service receives the ORIGINAL message and applies its own defaults and
 * rules to what a v2 order message cannot say (payment type, courier, currency, order value, fees, affiliate):
 * our values for those fields are never sent on this route, so their problems are not errors for it. Everything
 * the message does carry (patient, addresses, items and dm+d codes, prescriber, clinic, order id, repeats) is
 * still validated as for any route.
 */

/** Body paths the standard HL7 map does not read (see importing/hl7-field-map.ts `DEFAULT_HL7_MAP`). */
export const NOT_IN_HL7: ReadonlySet<string> = new Set([
  'customer.clinicAccountNumber',
  'prescription.clinicOrderValue',
  'prescription.paymentType',
  'prescription.courierCode',
  'prescription.currencyCode',
  'clinicInformation.prescriberFeeTypeId',
  'clinicInformation.prescriberFee',
  'affiliateId',
]);

/** Appended to a waived problem's text, so the admin sees why an error shows as a warning. */
const WAIVED_NOTE = ' Not needed to forward the HL7 message: the message cannot carry it; the service applies its own.';

/** Marks an error waived on the HL7 route, so changing the route back restores it exactly. */
export interface WaivableProblem extends Problem {
  waivedFor?: 'hl7';
}

export function waiveForHl7(problems: readonly WaivableProblem[]): WaivableProblem[] {
  return problems.map((problem) =>
    problem.severity === 'error' && problem.field !== undefined && NOT_IN_HL7.has(problem.field)
      ? { ...problem, severity: 'warning', text: `${problem.text}${WAIVED_NOTE}`, waivedFor: 'hl7' }
      : problem,
  );
}

/** Undoes `waiveForHl7`: for another route (or an order that can no longer be forwarded) they are errors again. */
export function restoreWaived(problems: readonly WaivableProblem[]): Problem[] {
  return problems.map((problem) => {
    if (problem.waivedFor !== 'hl7') return problem;
    const { waivedFor: _waived, ...rest } = problem;
    const text = rest.text.endsWith(WAIVED_NOTE) ? rest.text.slice(0, -WAIVED_NOTE.length) : rest.text;
    return { ...rest, severity: 'error', text };
  });
}

const v1 = createWithClinicV1Schema.shape;
const unchecked = () => z.unknown().optional();

/** The v1 schema with the fields the message cannot carry left unchecked: what the forward route relies on. */
export const hl7CarriedSchema = createWithClinicV1Schema.extend({
  customer: v1.customer.extend({ clinicAccountNumber: unchecked() }),
  prescription: v1.prescription.extend({
    clinicOrderValue: unchecked(),
    paymentType: unchecked(),
    courierCode: unchecked(),
    currencyCode: unchecked(),
  }),
  clinicInformation: v1.clinicInformation.extend({ prescriberFeeTypeId: unchecked(), prescriberFee: unchecked() }),
  affiliateId: unchecked(),
});

/** What a mapping profile must give for HL7 orders sent by v1 or v2: the template column and its label on screen. */
const PROFILE_FIELDS: ReadonlyMap<string, { label: string; what: string }> = new Map([
  ['prescription.paymentType', { label: 'Payment type', what: 'payment type' }],
  ['prescription.courierCode', { label: 'Courier', what: 'courier' }],
  ['prescription.currencyCode', { label: 'Currency', what: 'currency' }],
]);

/** The profile's field an error says is missing (a payment type, courier or currency), if it is one of them. */
export function profileFieldMissing(problem: Problem): { label: string; what: string } | undefined {
  const required = problem.severity === 'error' && problem.code === 'field.required';
  return required && problem.field !== undefined ? PROFILE_FIELDS.get(problem.field) : undefined;
}

const profileHint = (field: { label: string; what: string }) =>
  ` An HL7 order message has no ${field.what}: choose one for "${field.label}" in the HL7 mapping profile for this sender (Import, "HL7 mapping"), or send the batch as "Forward the HL7 message".`;

/**
 * On an HL7 order sent by v1 or v2, a missing payment type, courier or currency is the mapping profile's to give:
 * the error says which setting fixes it. `withoutProfileHint` takes the sentence off again (for the HL7 route,
 * which waives those errors, and before it is added again), so it is never said twice.
 */
export function withProfileHint(problems: readonly Problem[]): Problem[] {
  return problems.map((problem) => {
    const field = profileFieldMissing(problem);
    if (!field) return problem;
    const hint = profileHint(field);
    return problem.text.endsWith(hint) ? problem : { ...problem, text: `${problem.text}${hint}` };
  });
}

export function withoutProfileHint(problems: readonly Problem[]): Problem[] {
  return problems.map((problem) => {
    const field = problem.field === undefined ? undefined : PROFILE_FIELDS.get(problem.field);
    const hint = field ? profileHint(field) : undefined;
    return hint && problem.text.endsWith(hint) ? { ...problem, text: problem.text.slice(0, -hint.length) } : problem;
  });
}
