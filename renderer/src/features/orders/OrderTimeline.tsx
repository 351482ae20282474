import type { OrderDetail } from '../../../../shared/order-views.js';
import { formatDateTime } from '../format/format-date.js';
import { buildTimeline } from './build-timeline.js';
import { TONE_SYMBOL } from './order-states.js';
import { OrderSourceDisclosure } from './OrderSourceDisclosure.js';

export function OrderTimeline({ detail }: { detail: OrderDetail }) {
  const events = buildTimeline(detail);
  return (
    <section aria-labelledby="timeline-heading">
      <h4 id="timeline-heading">Timeline</h4>
      <ol className="timeline" aria-label="Order timeline">
        {events.map((event) => (
          <li key={event.key} className={`timeline-item tone-${event.tone}`}>
            <time dateTime={event.at}>{formatDateTime(event.at)}</time>
            <p className="timeline-title">
              <span aria-hidden="true">{TONE_SYMBOL[event.tone]}</span> {event.title}
            </p>
            {event.details.map((line) => (
              <p key={line} className="timeline-detail">
                {line}
              </p>
            ))}
            {event.technical ? (
              <details className="timeline-technical">
                <summary>Technical details</summary>
                {event.technical.map((line) => (
                  <p key={line} className="timeline-detail">
                    <code>{line}</code>
                  </p>
                ))}
              </details>
            ) : null}
            {event.showSource ? <OrderSourceDisclosure orderId={detail.order.id} /> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
