import type { AttentionView } from '../../../../shared/outbox-views.js';
import { formatTime } from '../format/format-date.js';

/** Conditions announced by the core (one per condition), newest first; an order is a link to it. */
export function AttentionList({ items }: { items: AttentionView[] }) {
  if (items.length === 0) return null;
  return (
    <section aria-labelledby="attention-heading" className="panel">
      <h3 id="attention-heading">Notifications</h3>
      <ul className="attention-list">
        {items.map((item, index) => (
          <li key={`${item.at}-${item.kind}-${index}`}>
            <time dateTime={item.at}>{formatTime(item.at)}</time>{' '}
            {item.order ? (
              // Named as the Orders screen names it, and opened from that name.
              <span>
                Order{' '}
                <a href={`#/orders/${item.order.id}`} className="inline-link">
                  {item.order.clinicOrderId}
                </a>{' '}
                ({item.order.clinicCode}): {item.order.detail}
              </span>
            ) : (
              <span>{item.message}</span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
