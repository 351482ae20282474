import { cancelRequestSchema } from '../../shared/orders.js';
import { badRequest, notFound } from '../http-io.js';
import { jsonBody, type Handler } from '../handler-context.js';
import { validate } from '../order-rules.js';
import { CANCELLABLE, STATUS } from '../status-progression.js';
import { statusRecordOf } from './orders-status.js';

/** Cancel is clinic-scoped: another clinic's order is "not found", and only orders not yet dispatched can go. */
export const cancelOrder: Handler = (ctx) => {
  const request = validate(cancelRequestSchema, jsonBody(ctx));
  return ctx.store.transaction(() => {
    const order = ctx.store.getOrder(request.orderId);
    if (!order || order.clinicCode !== request.clinicCode) {
      throw notFound(`order ${request.orderId} was not found for clinic ${request.clinicCode}`);
    }
    if (order.status === STATUS.cancelled) {
      throw badRequest('The order cannot be cancelled.', {
        message: `order ${order.pharmacyOrderId} is already cancelled`,
      });
    }
    if (!CANCELLABLE.includes(order.status)) {
      throw badRequest('The order cannot be cancelled.', {
        message: `order ${order.pharmacyOrderId} is "${order.status}"; only orders not yet dispatched can be cancelled`,
      });
    }
    ctx.store.setStatus(order.pharmacyOrderId, STATUS.cancelled, { cancelReason: request.cancelReason });
    return { status: 200, body: statusRecordOf(ctx.store.getOrder(order.pharmacyOrderId)!) };
  });
};
