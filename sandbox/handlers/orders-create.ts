import { createV2Schema, createWithClinicV1Schema, type CreateResponse } from '../../shared/orders.js';
import { badRequest, type Reply } from '../http-io.js';
import { jsonBody, type Handler, type HandlerContext } from '../handler-context.js';
import { readHl7Order } from '../hl7-order.js';
import {
  assertBusinessRules,
  assertNotLockedOut,
  countryProblem,
  courierProblem,
  courierTextOf,
  isInvoice,
  validate,
} from '../order-rules.js';
import { DuplicateClinicOrderError, type NewOrder, type OrderRoute } from '../order-store.js';
import { initialStatus } from '../status-progression.js';

/** The three ways to create an order: v1 shape with clinic registration (at v1 and v2 paths), v2 shape, HL7. */

function store(
  ctx: HandlerContext,
  order: NewOrder,
  registerClinic?: { name: string | null },
  clinicOrderIdField = 'prescription.clinicOrderId',
): Reply {
  try {
    const orderId = ctx.store.insertOrder(order, registerClinic);
    return { status: 200, body: { orderId } satisfies CreateResponse };
  } catch (error) {
    if (error instanceof DuplicateClinicOrderError) {
      throw badRequest('duplicate clinicOrderId', [{ field: clinicOrderIdField, message: error.message }]);
    }
    throw error;
  }
}

export function createWithClinic(
  route: Extract<OrderRoute, 'create-with-clinic-v1' | 'create-with-clinic-v2'>,
): Handler {
  return (ctx) => {
    const body = validate(createWithClinicV1Schema, jsonBody(ctx));
    assertBusinessRules([
      countryProblem('homeAddress.countryCode', body.homeAddress.countryCode),
      countryProblem('deliveryAddress.countryCode', body.deliveryAddress.countryCode),
      countryProblem('clinicInformation.countryCode', body.clinicInformation.countryCode),
      courierProblem('prescription.courierCode', body.prescription.courierCode),
    ]);
    assertNotLockedOut(ctx.lockedOut, { surname: body.customer.surname, dateOfBirth: body.customer.dateOfBirth });
    return store(
      ctx,
      {
        clinicCode: body.clinicInformation.clinicCode,
        clinicOrderId: body.prescription.clinicOrderId,
        route,
        rawBody: ctx.rawBody,
        status: initialStatus(isInvoice(body.prescription.paymentType)),
        courierCode: courierTextOf(body.prescription.courierCode),
      },
      { name: body.clinicInformation.name },
    );
  };
}

export const createV2: Handler = (ctx) => {
  const body = validate(createV2Schema, jsonBody(ctx));
  const clinicCode = body.clinicInformation.clinicCode;
  assertBusinessRules([
    body.homeAddress ? countryProblem('homeAddress.countryCode', body.homeAddress.countryCode) : null,
    countryProblem('deliveryAddress.countryCode', body.deliveryAddress.countryCode),
    courierProblem('prescription.courierCode', body.prescription.courierCode),
    ctx.store.hasClinic(clinicCode)
      ? null
      : {
          field: 'clinicInformation.clinicCode',
          message: `invalid clinic ${clinicCode}: the service does not know it; register it with create-with-clinic first`,
        },
  ]);
  assertNotLockedOut(ctx.lockedOut, { surname: body.customer.surname, dateOfBirth: body.customer.dateOfBirth });
  return store(ctx, {
    clinicCode,
    clinicOrderId: body.prescription.clinicOrderId,
    route: 'create-v2',
    rawBody: ctx.rawBody,
    status: initialStatus(isInvoice(body.prescription.paymentType)),
    courierCode: courierTextOf(body.prescription.courierCode),
  });
};

/** HL7 carries no clinic details to check against, so like create-with-clinic it registers an unknown clinic. */
export const createWithHl7: Handler = (ctx) => {
  if (!ctx.rawBody.trim()) {
    throw badRequest('A non-empty request body is required.', [
      { field: '(body)', message: 'send the HL7 message as text/plain' },
    ]);
  }
  const facts = readHl7Order(ctx.rawBody);
  assertNotLockedOut(ctx.lockedOut, { surname: facts.patientSurname, dateOfBirth: facts.patientDateOfBirth });
  return store(
    ctx,
    {
      clinicCode: facts.clinicCode,
      clinicOrderId: facts.clinicOrderId,
      route: 'hl7',
      rawBody: ctx.rawBody,
      status: initialStatus(false),
      courierCode: null,
    },
    { name: null },
    'ORC-2',
  );
};
