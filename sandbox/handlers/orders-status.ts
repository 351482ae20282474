import type { StatusRecord } from '../../shared/status.js';
import { badRequest, notFound } from '../http-io.js';
import { queryParam, type Handler } from '../handler-context.js';
import { checkDateRange, positiveIntParam, VALIDATION_FAILED } from '../order-rules.js';
import type { StoredOrder } from '../order-store.js';

/** The four status queries. An unknown order is 404 (status pages also mention 400; the client accepts both). */

/** The public status record; pharmacyOrderId is a string on the wire, as the public pages show it. */
export function statusRecordOf(order: StoredOrder): StatusRecord {
  return {
    clinicOrderId: order.clinicOrderId,
    pharmacyOrderId: String(order.pharmacyOrderId),
    orderStatus: order.status,
    dispatchDate: order.dispatchDate,
    trackingId: order.trackingId,
    cancelReason: order.cancelReason,
  };
}

export const statusByOrderId: Handler = (ctx) => {
  const orderId = positiveIntParam('orderId', queryParam(ctx, 'orderId'));
  const order = ctx.store.getOrder(orderId);
  if (!order) throw notFound(`order ${orderId} was not found`);
  return { status: 200, body: statusRecordOf(order) };
};

/** The supplier flow: clinic-scoped, always an array; no match is an empty array, not an error. */
export const statusWithClinicCode: Handler = (ctx) => {
  const clinicCode = queryParam(ctx, 'clinicCode');
  const orderIdText = queryParam(ctx, 'orderId');
  const clinicOrderId = queryParam(ctx, 'clinicOrderId');
  const problems = [];
  if (!clinicCode) problems.push({ field: 'clinicCode', message: 'clinicCode is required' });
  if (!orderIdText && !clinicOrderId) {
    problems.push({ field: 'orderId', message: 'give orderId (the pharmacy order id) or clinicOrderId' });
  }
  if (problems.length > 0) throw badRequest(VALIDATION_FAILED, problems);
  const pharmacyOrderId = orderIdText ? positiveIntParam('orderId', orderIdText) : undefined;
  const orders = ctx.store.findForClinic(clinicCode!, {
    ...(pharmacyOrderId !== undefined ? { pharmacyOrderId } : {}),
    ...(clinicOrderId ? { clinicOrderId } : {}),
  });
  return { status: 200, body: orders.map(statusRecordOf) };
};

/** `orderId` here is the clinic's own order id (a string), despite the parameter's name. */
export const statusByClinicOrderNumber: Handler = (ctx) => {
  const clinicOrderId = queryParam(ctx, 'orderId');
  if (!clinicOrderId)
    throw badRequest(VALIDATION_FAILED, [{ field: 'orderId', message: 'orderId (the clinic order id) is required' }]);
  const order = ctx.store.findByClinicOrderId(clinicOrderId);
  if (!order) throw notFound(`no order with clinic order id ${clinicOrderId} was found`);
  return { status: 200, body: statusRecordOf(order) };
};

/**
 * Orders by dispatch date. The real service scopes this to the caller's clinic; the sandbox's tokens carry no
 * clinic, so it returns every clinic's dispatched orders in the range.
 */
export const statusByDateRange: Handler = (ctx) => {
  const range = checkDateRange(queryParam(ctx, 'startDate'), queryParam(ctx, 'endDate'));
  return { status: 200, body: ctx.store.findDispatchedBetween(range.startDate, range.endDate).map(statusRecordOf) };
};
