import { parseWireJson } from '../../../shared/wire-json.js';
import type { BatchRecord } from '../store/batches-repo.js';
import type { StagedOrder } from '../store/staged-orders-repo.js';
import type { Store } from '../store/store.js';

/**
 * An accepted order whose staged copy retention dropped (store/retention-repo.ts: its body is `{}`) still has the
 * body it was sent with in the outbox (packed there too, later: read back as the same text). For a v1 batch that is
 * the staged body's own shape (dm+d codes as digits), so the batch's view and its template export use it.
 */

/** The v1 body an accepted, compacted staged order was sent with (`request`); undefined otherwise. */
export function compactedBody(order: StagedOrder, route: BatchRecord['route'], request: string | null): unknown {
  const empty = typeof order.body === 'object' && order.body !== null && Object.keys(order.body).length === 0;
  if (order.state !== 'accepted' || !empty || route !== 'v1' || request === null) return undefined;
  try {
    const sent = parseWireJson(request) as { prescribedItems?: Array<{ dmdCode?: unknown }> };
    sent.prescribedItems?.forEach((item) => {
      if (typeof item.dmdCode === 'number') item.dmdCode = String(item.dmdCode);
    });
    return sent;
  } catch {
    return undefined;
  }
}

/** The staged order's body, or for one `compactedBody` applies to, the body it was sent with. */
export function stagedBodyOrSent(store: Store, order: StagedOrder, route: BatchRecord['route']): unknown {
  const empty = typeof order.body === 'object' && order.body !== null && Object.keys(order.body).length === 0;
  if (!empty || order.state !== 'accepted' || order.orderControl !== 'NW' || !order.orderId) return order.body;
  return compactedBody(order, route, store.orders.get(order.orderId)?.requestBody ?? null) ?? order.body;
}
