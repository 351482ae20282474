import { useEffect, useRef, useState } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import type { OrderSummary } from '../../../../shared/order-views.js';
import { useApi } from '../../api/api-context.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { useFocusWhenLost } from '../focus/focus-return.js';
import { plural } from '../format/format-time.js';
import { NextSteps } from '../workspace/NextSteps.js';
import { CancelDialog } from './CancelDialog.js';
import { OrderDetailView, type RefreshRound } from './OrderDetailView.js';
import { NO_FILTERS, type OrderFilters } from './order-filters.js';
import { OrderFiltersForm } from './OrderFiltersForm.js';
import { OrderTable } from './OrderTable.js';
import { ServiceLookup } from './ServiceLookup.js';
import { useOrderPages } from './use-order-pages.js';
import '../submissions/live-state.css';

/** Search, filter and open orders; cancel one or many; look orders up on the service. */
export function OrdersScreen({ environment, openOrderId }: { environment: EnvironmentView; openOrderId?: number }) {
  const api = useApi();
  const [filters, setFilters] = useState<OrderFilters>(NO_FILTERS);
  const pages = useOrderPages(environment.id, filters);
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [cancelling, setCancelling] = useState<OrderSummary[]>();
  const [refresh, setRefresh] = useState<{ round?: RefreshRound; busy: boolean; error?: unknown }>({ busy: false });

  // Closing the detail puts the keyboard back on the order's link in the list (or the list's heading).
  const lastOpen = useRef(openOrderId);
  const listRef = useRef<HTMLElement>(null);
  useEffect(() => {
    const closed = lastOpen.current;
    lastOpen.current = openOrderId;
    if (closed === undefined || openOrderId !== undefined) return;
    const list = listRef.current;
    const link = list?.querySelector<HTMLElement>(`a[href="#/orders/${closed}"]`);
    (link ?? list?.querySelector<HTMLElement>('#orders-list-heading'))?.focus();
  }, [openOrderId]);

  // The dialog gives focus back to the button that opened it; when that button has gone (the order turned out to
  // be dispatched, or is cancelled now) the keyboard goes to the order's detail, else to the list.
  const detailRef = useRef<HTMLDivElement>(null);
  useFocusWhenLost(cancelling, () =>
    cancelling
      ? null
      : (detailRef.current?.querySelector<HTMLElement>('h3[tabindex]') ??
        listRef.current?.querySelector<HTMLElement>('#orders-list-heading')),
  );

  function toggle(id: number) {
    setSelected((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  }

  async function refreshStatuses(orderId: number) {
    setRefresh((r) => ({ ...r, busy: true, error: undefined }));
    try {
      const round = await api.call('orders.refresh', { environmentId: environment.id, orderId });
      setRefresh({ round, busy: false });
    } catch (error) {
      setRefresh({ busy: false, error });
    }
  }

  const chosen = pages.orders.filter((order) => selected.has(order.id));
  return (
    <section
      aria-labelledby="screen-heading"
      className={openOrderId !== undefined ? 'screen orders-screen-with-detail' : 'screen'}
    >
      <h2 id="screen-heading" tabIndex={-1}>
        Orders
      </h2>
      <div className={openOrderId !== undefined ? 'orders-layout with-detail' : 'orders-layout'}>
        <section aria-labelledby="orders-list-heading" className="panel" ref={listRef}>
          <div className="panel-head">
            <h3 id="orders-list-heading" tabIndex={-1}>
              Orders in {environment.name}
            </h3>
            <button
              type="button"
              className="secondary"
              disabled={chosen.length === 0}
              onClick={() => setCancelling(chosen)}
            >
              Cancel selected ({chosen.length})…
            </button>
          </div>
          <OrderFiltersForm
            applied={filters}
            onApply={(next) => {
              setSelected(new Set());
              setFilters(next);
            }}
          />
          {pages.error ? <ErrorMessage error={pages.error} /> : null}
          <p role="status" className="hint">
            {pages.loading && pages.orders.length === 0
              ? 'Loading orders…'
              : `${plural(pages.orders.length, 'order')} shown${pages.hasMore ? ', more below' : ''}.`}
          </p>
          {!pages.loading && !pages.error && pages.orders.length === 0 ? (
            Object.values(filters).every((value) => value === '') ? (
              <NextSteps
                environment={environment}
                title={`No orders in ${environment.name} yet`}
                why="Every order accepted into this environment is listed here, with its status at the service."
              />
            ) : (
              <p className="hint">No orders match these filters. Clear them to see every order.</p>
            )
          ) : null}
          {pages.orders.length > 0 ? (
            <OrderTable
              orders={pages.orders}
              selected={selected}
              onToggle={toggle}
              onToggleAll={(all) => setSelected(all ? new Set(pages.orders.map((order) => order.id)) : new Set())}
              openOrderId={openOrderId}
            />
          ) : null}
          {pages.hasMore ? (
            <button type="button" className="secondary" onClick={pages.loadMore} disabled={pages.loading}>
              {pages.loading ? 'Loading…' : 'Load more orders'}
            </button>
          ) : null}
        </section>
        {openOrderId !== undefined ? (
          <div className="order-detail-holder" ref={detailRef}>
            {refresh.error ? <ErrorMessage error={refresh.error} /> : null}
            <OrderDetailView
              key={openOrderId}
              orderId={openOrderId}
              lastRefresh={refresh.round}
              pollIntervalMs={environment.pollIntervalMs}
              refreshing={refresh.busy}
              onRefresh={() => void refreshStatuses(openOrderId)}
              onCancel={(detail) => setCancelling([detail.order])}
              onClose={() => {
                window.location.hash = '#/orders';
              }}
            />
          </div>
        ) : null}
      </div>
      <ServiceLookup environment={environment} />
      {cancelling ? (
        <CancelDialog
          orders={cancelling}
          onClose={() => {
            setCancelling(undefined);
            setSelected(new Set());
          }}
        />
      ) : null}
    </section>
  );
}
