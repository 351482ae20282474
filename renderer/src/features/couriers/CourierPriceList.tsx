import { Suspense, useState, useTransition } from 'react';
import { useApi } from '../../api/api-context.js';
import { settle } from '../../api/settle.js';
import { CourierTable } from './CourierTable.js';

/** Render with `key={environmentId}`: the list is loaded once per environment, then on request. */
export function CourierPriceList({ environmentId }: { environmentId: string }) {
  const api = useApi();
  const load = () => settle(api.call('couriers.priceList', { environmentId }));
  const [request, setRequest] = useState(load);
  // A transition keeps the current table on screen while the new prices load.
  const [refreshing, startRefresh] = useTransition();

  return (
    <section aria-labelledby="couriers-heading" className="panel">
      <div className="panel-head">
        <h3 id="couriers-heading">Courier price list</h3>
        <button type="button" onClick={() => startRefresh(() => setRequest(load()))} disabled={refreshing}>
          {refreshing ? 'Refreshing…' : 'Refresh prices'}
        </button>
      </div>
      <Suspense fallback={<p role="status">Loading prices…</p>}>
        <CourierTable request={request} />
      </Suspense>
    </section>
  );
}
