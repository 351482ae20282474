import type { AttentionView } from '../../../../shared/outbox-views.js';
import { formatTime } from '../format/format-time.js';

/** Conditions announced by the core (one per condition), newest first, with links to the orders concerned. */
export function AttentionList({ items }: { items: AttentionView[] }) {
  if (items.length === 0) return null;
  return (
    <section aria-labelledby="attention-heading" className="panel">
      <h3 id="attention-heading">Notifications</h3>
      <ul className="attention-list">
        {items.map((item, index) => (
          <li key={`${item.at}-${item.kind}-${index}`}>
            <time dateTime={item.at}>{formatTime(item.at)}</time> <span>{item.message}</span>
            {item.orderIds.map((id) => (
              <a key={id} href={`#/orders/${id}`} className="inline-link">
                Open order {id}
              </a>
            ))}
          </li>
        ))}
      </ul>
    </section>
  );
}
