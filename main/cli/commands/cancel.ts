import type { OrderRecord } from '../../core/store/orders-repo.js';
import type { CliContext } from '../cli-context.js';
import { EXIT, InputError } from '../cli-errors.js';

/** States that end an order's story: nothing left to cancel. */
const FINISHED = ['withdrawn', 'cancelled'];

/**
 * Cancels the order with this clinic order id (narrowed by --env and --clinic when it exists in several).
 * Offline: an unsent order is withdrawn now; for one the service has, a cancel command waits for `submit`.
 */
export function cancel(
  ctx: CliContext,
  clinicOrderId: string,
  reason: string,
  filter: { environmentId?: string; clinicCode?: string },
): number {
  const services = ctx.services;
  const all: OrderRecord[] = services.store.orders.list({
    clinicOrderId,
    ...(filter.environmentId ? { environmentId: filter.environmentId } : {}),
    ...(filter.clinicCode ? { clinicCode: filter.clinicCode } : {}),
    limit: 100,
  });
  if (all.length === 0) {
    throw new InputError(
      `no open order has clinic order id ${clinicOrderId}: none was accepted with that id (rx-batch status lists them)`,
    );
  }
  // Only finished ones: the core refuses each, naming its state (already cancelled, withdrawn), as the app does.
  const open = all.filter((order) => !FINISHED.includes(order.state));
  const matches = open.length > 0 ? open : all;
  const places = new Set(matches.map((o) => `${o.environmentId} / ${o.clinicCode}`));
  if (places.size > 1) {
    throw new InputError(
      `clinic order id ${clinicOrderId} is in ${[...places].join(', ')}: say which with --env and --clinic`,
    );
  }
  let results;
  try {
    results = services.cancelOrders(
      matches.map((o) => o.id),
      reason,
    );
  } catch (error) {
    if (error instanceof RangeError) throw new InputError(`--reason: ${error.message}`);
    throw error;
  }
  if (ctx.options.json) ctx.json(results);
  else {
    for (const result of results) {
      const text =
        result.outcome === 'withdrawn'
          ? 'withdrawn (it had not been sent)'
          : result.outcome === 'cancel-requested'
            ? `cancel queued: run rx-batch submit --env ${matches[0]!.environmentId} --until-idle to send it`
            : `not cancelled: ${result.reason ?? ''}`;
      ctx.line(`${clinicOrderId} (order ${result.orderId}): ${text}`);
    }
  }
  return results.some((r) => r.outcome === 'refused') ? EXIT.attention : EXIT.ok;
}
