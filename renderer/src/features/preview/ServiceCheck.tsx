import { useEffect, useState } from 'react';
import type { OrderEnrichment } from '../../../../shared/enrichment-views.js';
import type { StagedOrderView } from '../../../../shared/staging-views.js';
import { useApi } from '../../api/api-context.js';
import { formatMoney } from '../couriers/format-money.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { useNow } from '../format/use-now.js';
import {
  checkedText,
  courierPhrase,
  itemCheckedAt,
  itemRecheckFailure,
  lookupsHref,
  pricePhrase,
  productPhrase,
  stockPhrase,
  type Phrase,
} from './enrichment-text.js';
import { displayValue, valueAt } from './order-fields.js';

function Said({ phrase }: { phrase: Phrase }) {
  return (
    <span className={phrase.tone}>
      <span aria-hidden="true">{phrase.mark} </span>
      {phrase.text}
    </span>
  );
}

/**
 * What the service said about the focused order (its last check, read from the store: works offline): per item
 * the product, stock and price with when they were checked, the courier, and the service's warnings, kept apart
 * from the validation problems above. Each item links to the Lookups product search for its code (or its
 * medication, to find the right code).
 */
export function ServiceCheck({
  batchId,
  order,
  line,
  version,
}: {
  batchId: number;
  order: StagedOrderView;
  line: number;
  /** Changes when a check finishes: read again. */
  version: number;
}) {
  const api = useApi();
  const now = useNow(30_000);
  const [loaded, setLoaded] = useState<{ for: StagedOrderView; view: OrderEnrichment | undefined }>();
  const [error, setError] = useState<unknown>();

  // Read again for another order, an edited one (a new object), or after a check.
  useEffect(() => {
    let live = true;
    api.call('batches.enrichment', { batchId, stagedOrderIds: [order.id] }).then(
      (state) => {
        if (!live) return;
        setError(undefined);
        setLoaded({ for: order, view: state.orders[0] });
      },
      (failure: unknown) => {
        if (live) setError(failure);
      },
    );
    return () => {
      live = false;
    };
  }, [api, batchId, order, version]);

  const view = loaded?.for.id === order.id ? loaded.view : undefined;
  // Lookups offers "Back to batch N" to this very order.
  const from = { batchId, stagedOrderId: order.id };
  const fileValue = valueAt(order.body, 'prescription.clinicOrderValue');

  return (
    <section aria-labelledby={`service-check-${order.id}`} className="service-check">
      <h4 id={`service-check-${order.id}`}>Service check</h4>
      {error ? <ErrorMessage error={error} /> : null}
      {!view ? (
        <p className="hint">{error ? '' : 'Reading…'}</p>
      ) : (
        <>
          {view.warnings.length ? (
            <ul className="problem-list service-warnings" aria-label="Service warnings">
              {view.warnings.map((warning, i) => (
                <li key={i} className="warn">
                  <strong>
                    <span aria-hidden="true">⚠ </span>Service warning
                    {warning.itemIndex !== null ? ` (item ${warning.itemIndex + 1})` : ''}:
                  </strong>{' '}
                  {warning.text}
                </li>
              ))}
            </ul>
          ) : null}
          {view.items.map((item) => {
            const checkedAt = itemCheckedAt(item);
            const recheck = itemRecheckFailure(item);
            const medication = displayValue(valueAt(order.body, `prescribedItems.${item.index}.medication`));
            const focused = item.index === line;
            return (
              <div
                key={item.index}
                className={`service-item${focused ? ' service-item-focused' : ''}`}
                role="group"
                aria-label={`Item ${item.index + 1}${focused ? ' (this line)' : ''}`}
              >
                <p className="service-item-title">
                  Item {item.index + 1}
                  {focused ? <span className="hint"> (this line)</span> : null}:{' '}
                  {item.dmdCode ? <code className="dmd">{item.dmdCode}</code> : <span className="hint">no code</span>}
                </p>
                <dl className="report">
                  <dt>Product</dt>
                  <dd>
                    <Said phrase={productPhrase(item.product)} />
                  </dd>
                  <dt>Stock</dt>
                  <dd>
                    <Said phrase={stockPhrase(item.stock)} />
                  </dd>
                  <dt>Price</dt>
                  <dd>
                    <Said phrase={pricePhrase(item.price)} />
                  </dd>
                  {checkedAt ? (
                    <>
                      <dt>Checked</dt>
                      <dd>
                        <time dateTime={checkedAt}>{checkedText(checkedAt, now)}</time>
                        {recheck ? (
                          <span className="hint">
                            {' '}
                            A later check at {checkedText(recheck.at, now)} failed ({recheck.message}); this is the
                            earlier answer.
                          </span>
                        ) : null}
                      </dd>
                    </>
                  ) : null}
                </dl>
                <p className="service-links">
                  {item.dmdCode ? (
                    <a href={lookupsHref(item.dmdCode, from)}>
                      Look up {item.dmdCode}
                      <span className="visually-hidden"> (item {item.index + 1})</span> in Lookups
                    </a>
                  ) : null}
                  {medication ? (
                    <a href={lookupsHref(medication, from)}>
                      Search Lookups for “{medication}”<span className="visually-hidden"> (item {item.index + 1})</span>
                    </a>
                  ) : null}
                </p>
              </div>
            );
          })}
          <dl className="report">
            <dt>Courier</dt>
            <dd>
              <Said phrase={courierPhrase(view.courier)} />
            </dd>
            {view.total ? (
              <>
                <dt>Order value</dt>
                <dd>
                  {formatMoney(view.total.totalPrice, view.total.currencyCode)} at the service’s prices
                  {typeof fileValue === 'number'
                    ? ` (the file says ${formatMoney(fileValue, view.total.currencyCode)})`
                    : ''}
                </dd>
              </>
            ) : null}
          </dl>
        </>
      )}
    </section>
  );
}
