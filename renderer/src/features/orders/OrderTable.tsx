import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import type { OrderSummary } from '../../../../shared/order-views.js';
import { formatDateTime } from '../format/format-date.js';
import { StateMark } from './StateMark.js';
import { TrackingId } from './TrackingId.js';

const ROW_HEIGHT = 44;

interface Props {
  orders: OrderSummary[];
  selected: ReadonlySet<number>;
  onToggle: (id: number) => void;
  onToggleAll: (select: boolean) => void;
  openOrderId: number | undefined;
}

/**
 * The orders as a real table (so screen readers and tests read rows and cells), with only the visible rows in
 * the DOM: spacer rows stand in for the rest, which keeps thousands of loaded orders smooth to scroll.
 */
export function OrderTable({ orders, selected, onToggle, onToggleAll, openOrderId }: Props) {
  const scrollRef = useRef<HTMLDivElement>(null);
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is read during render by design.
  const virtualizer = useVirtualizer({
    count: orders.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const before = items[0]?.start ?? 0;
  const after = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
  const allSelected = orders.length > 0 && orders.every((order) => selected.has(order.id));

  return (
    <div ref={scrollRef} className="table-scroll" tabIndex={0} aria-label="Orders list, scrollable">
      <table className="orders-table">
        <caption className="visually-hidden">Orders</caption>
        <thead>
          <tr>
            <th scope="col" className="check">
              <input
                type="checkbox"
                aria-label="Select all orders shown"
                checked={allSelected}
                onChange={(event) => onToggleAll(event.target.checked)}
              />
            </th>
            <th scope="col">Clinic order id</th>
            <th scope="col">Clinic</th>
            <th scope="col">Local state</th>
            <th scope="col">Remote status</th>
            <th scope="col" className="number">
              Pharmacy id
            </th>
            <th scope="col">Tracking id</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {before > 0 ? (
            <tr aria-hidden="true" className="spacer">
              <td colSpan={8} style={{ height: before }} />
            </tr>
          ) : null}
          {items.map((item) => {
            const order = orders[item.index]!;
            return (
              <tr
                key={order.id}
                className={order.id === openOrderId ? 'selected' : undefined}
                style={{ height: ROW_HEIGHT }}
              >
                <td className="check">
                  <input
                    type="checkbox"
                    aria-label={`Select order ${order.clinicOrderId}`}
                    checked={selected.has(order.id)}
                    onChange={() => onToggle(order.id)}
                  />
                </td>
                <th scope="row">
                  <a href={`#/orders/${order.id}`} aria-current={order.id === openOrderId ? 'true' : undefined}>
                    {order.clinicOrderId}
                  </a>
                </th>
                <td>{order.clinicCode}</td>
                <td>
                  <StateMark order={order} />
                </td>
                <td>{order.remoteStatus ?? (order.pharmacyOrderId !== null ? 'Not read yet' : '—')}</td>
                <td className="number">{order.pharmacyOrderId ?? '—'}</td>
                <td>
                  <TrackingId trackingId={order.trackingId} courierCode={order.courierCode} />
                </td>
                <td>{formatDateTime(order.updatedAt)}</td>
              </tr>
            );
          })}
          {after > 0 ? (
            <tr aria-hidden="true" className="spacer">
              <td colSpan={8} style={{ height: after }} />
            </tr>
          ) : null}
        </tbody>
      </table>
    </div>
  );
}
