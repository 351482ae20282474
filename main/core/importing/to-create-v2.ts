import type { CodeLists } from '../../../shared/environment.js';
import { createV2Schema, type CreateV2Input, type CreateWithClinicV1 } from '../../../shared/orders.js';
import { problem, quote } from './problems.js';
import type { Problem } from '../model/imported-order.js';

/**
 * The v2 create route, for clinics the service already knows: the same order in the v2 shape. Title, payment type
 * and courier code become the environment's integers, the date of birth a date-time, the repeats move onto each
 * item, and the clinic is named by its code only.
 */
export function toCreateV2(
  body: CreateWithClinicV1,
  codeLists: CodeLists,
  file = '',
): { ok: true; body: CreateV2Input } | { ok: false; problems: Problem[] } {
  const problems: Problem[] = [];
  const code = (value: string, table: Record<string, number>, field: string, what: string): number => {
    const mapped = table[value];
    if (mapped === undefined) {
      problems.push(
        problem(
          'error',
          file,
          {},
          'v2.unmapped',
          `The ${what} ${quote(value)} has no v2 number in this environment's code lists, so the order cannot go by the v2 route.`,
          field,
        ),
      );
    }
    return mapped ?? -1;
  };
  const v2: CreateV2Input = {
    customer: {
      ...(body.customer.clinicAccountNumber != null ? { clinicAccountNumber: body.customer.clinicAccountNumber } : {}),
      title: code(body.customer.title, codeLists.v2Title, 'customer.title', 'title'),
      firstName: body.customer.firstName,
      surname: body.customer.surname,
      dateOfBirth: `${body.customer.dateOfBirth}T00:00:00Z`,
      gender: body.customer.gender,
      ...(body.customer.telephone != null ? { telephone: body.customer.telephone } : {}),
      ...(body.customer.email != null ? { email: body.customer.email } : {}),
    },
    homeAddress: body.homeAddress,
    deliveryAddress: body.deliveryAddress,
    prescription: {
      clinicOrderId: body.prescription.clinicOrderId,
      ...(body.prescription.clinicOrderValue != null ? { clinicOrderValue: body.prescription.clinicOrderValue } : {}),
      paymentType: code(
        body.prescription.paymentType,
        codeLists.v2PaymentType,
        'prescription.paymentType',
        'payment type',
      ),
      courierCode: code(
        body.prescription.courierCode,
        codeLists.v2CourierCode,
        'prescription.courierCode',
        'courier code',
      ),
      currencyCode: body.prescription.currencyCode,
    },
    prescribedItems: body.prescribedItems.map((item) => ({
      ...item,
      ...(body.prescription.repeatsAllowed != null ? { allowedRepeats: body.prescription.repeatsAllowed } : {}),
    })),
    prescribingDoctor: body.prescribingDoctor,
    clinicInformation: {
      clinicCode: body.clinicInformation.clinicCode,
      ...(body.clinicInformation.prescriberFeeTypeId != null
        ? { prescriberFeeTypeId: body.clinicInformation.prescriberFeeTypeId }
        : {}),
      ...(body.clinicInformation.prescriberFee != null ? { prescriberFee: body.clinicInformation.prescriberFee } : {}),
    },
  };
  if (problems.length > 0) return { ok: false, problems };
  const checked = createV2Schema.safeParse(v2);
  if (!checked.success) {
    return {
      ok: false,
      problems: checked.error.issues.map((issue) =>
        problem('error', file, {}, 'v2.invalid', `The v2 body is not valid: ${issue.message}.`, issue.path.join('.')),
      ),
    };
  }
  return { ok: true, body: v2 };
}
