import { useCallback, useEffect, useRef, useState } from 'react';
import type { OrderSummary } from '../../../../shared/order-views.js';
import { useApi } from '../../api/api-context.js';
import { useEvent } from '../../api/use-event.js';
import { toListInput, type OrderFilters } from './order-filters.js';

const PAGE = 200;
const MAX_RELOAD = 500;

export interface OrderPages {
  orders: OrderSummary[];
  hasMore: boolean;
  loading: boolean;
  error: unknown;
  loadMore: () => void;
}

/**
 * Orders matching the filters, a page at a time (keyset paging). When the core reports changed orders of this
 * environment (or the outbox's counts move), what is on screen is read again (up to 500 rows) after a short
 * pause, so a busy batch does not turn into a query per answer.
 */
export function useOrderPages(environmentId: string, filters: OrderFilters): OrderPages {
  const api = useApi();
  const [state, setState] = useState<{
    orders: OrderSummary[];
    nextAfterId: number | null;
    loading: boolean;
    error: unknown;
  }>({ orders: [], nextAfterId: null, loading: true, error: undefined });
  const generation = useRef(0);

  const load = useCallback(
    (afterId: number | undefined, limit: number, append: boolean) => {
      const mine = ++generation.current;
      api
        .call(
          'orders.list',
          toListInput(environmentId, filters, { ...(afterId !== undefined ? { afterId } : {}), limit }),
        )
        .then(
          (page) => {
            if (mine !== generation.current) return;
            setState((s) => ({
              orders: append ? [...s.orders, ...page.orders] : page.orders,
              nextAfterId: page.nextAfterId,
              loading: false,
              error: undefined,
            }));
          },
          (error: unknown) => {
            if (mine === generation.current) setState((s) => ({ ...s, loading: false, error }));
          },
        );
    },
    [api, environmentId, filters],
  );

  useEffect(() => {
    load(undefined, PAGE, false);
  }, [load]);

  const shown = useRef(0);
  useEffect(() => {
    shown.current = state.orders.length;
  }, [state.orders.length]);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  function scheduleReload(delayMs: number) {
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      load(undefined, Math.min(MAX_RELOAD, Math.max(PAGE, shown.current)), false);
    }, delayMs);
  }
  useEvent('orders.changed', (change) => {
    if (change.environmentId === environmentId) scheduleReload(400);
  });
  // Sending changes states without an orders.changed event; progress reports say something moved.
  const lastCounts = useRef('');
  useEvent('outbox.progress', (progress) => {
    if (progress.environmentId !== environmentId) return;
    const counts = JSON.stringify(progress.counts);
    if (counts === lastCounts.current) return;
    lastCounts.current = counts;
    scheduleReload(1000);
  });

  const loadMore = useCallback(() => {
    if (state.nextAfterId === null) return;
    setState((s) => ({ ...s, loading: true }));
    load(state.nextAfterId, PAGE, true);
  }, [load, state.nextAfterId]);

  return {
    orders: state.orders,
    hasMore: state.nextAfterId !== null,
    loading: state.loading,
    error: state.error,
    loadMore,
  };
}
