import { useEffect, useState } from 'react';
import type { OrderHistoryEntry, StagedOrderView } from '../../../../shared/staging-views.js';
import { useApi } from '../../api/api-context.js';
import { formatDateTime } from '../format/format-date.js';
import { fieldOfPath } from './order-fields.js';

/** How long the focus must rest on an order before its history is read (arrowing through orders reads none). */
const SETTLE_MS = 150;

const shown = (value: string | null) => (value === null || value === '' ? '(blank)' : value);

function fieldName(path: string): string {
  const field = fieldOfPath(path);
  const item = /^prescribedItems\.(\d+)\./.exec(path);
  const label = field?.label ?? path;
  return item ? `${label}, item ${Number(item[1]) + 1}` : label;
}

/**
 * An order's changes, newest first: each cell's value before and after, when, and how (an edit, or a find and
 * replace across the batch); changes taken back by undo are struck through and say when. Read from the core
 * (`batches.orderHistory`) for the order in the details, again whenever that order changes.
 */
export function OrderHistory({ order }: { order: StagedOrderView }) {
  const api = useApi();
  const [entries, setEntries] = useState<{ order: StagedOrderView; entries: OrderHistoryEntry[] }>();
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      api.call('batches.orderHistory', { stagedOrderId: order.id }).then(
        (answer) => {
          if (live) setEntries({ order, entries: answer.entries });
        },
        () => undefined,
      );
    }, SETTLE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, order]);

  const list = entries?.order.id === order.id ? entries.entries : undefined;
  if (!list?.length) return null;
  return (
    <section aria-labelledby={`history-${order.id}`} className="order-history">
      <h4 id={`history-${order.id}`}>Changes</h4>
      <ol className="history-list">
        {list.map((entry, i) => (
          <li key={i} className={entry.state === 'done' ? undefined : 'history-undone'}>
            <span className="history-field">{fieldName(entry.path)}</span>:{' '}
            {entry.state === 'done' ? (
              <>
                {shown(entry.before)} → {shown(entry.after)}
              </>
            ) : (
              <s>
                {shown(entry.before)} → {shown(entry.after)}
              </s>
            )}{' '}
            <span className="hint">
              {formatDateTime(entry.at)}
              {entry.kind === 'replace' ? ', find and replace' : ', edit'}
              {entry.state === 'undone' ? `; undone ${formatDateTime(entry.undoneAt)} (Redo brings it back)` : ''}
              {entry.state === 'dropped' ? `; undone ${formatDateTime(entry.undoneAt)}` : ''}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
