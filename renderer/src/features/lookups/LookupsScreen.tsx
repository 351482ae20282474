import { useState } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import { CourierPriceList } from '../couriers/CourierPriceList.js';
import { ProductSearch } from '../products/ProductSearch.js';
import type { BatchPlace } from '../workspace/route.js';
import { BackToBatch } from './BackToBatch.js';
import { StockPriceCheck, type PickedProduct } from './StockPriceCheck.js';

/**
 * Products (search works signed out), stock and price for a number of packs, and the courier price list.
 * `initialSearch` (from `#/lookups?search=…`, e.g. the preview's "look up" link) fills the search and runs it;
 * `from` (the preview's batch and order, `&batch=…&order=…`) offers the way back to them.
 */
export function LookupsScreen({
  environment,
  initialSearch,
  from,
}: {
  environment: EnvironmentView;
  initialSearch?: string | undefined;
  from?: BatchPlace | undefined;
}) {
  const [picked, setPicked] = useState<PickedProduct>();
  return (
    <section aria-labelledby="screen-heading" className="screen">
      <h2 id="screen-heading" tabIndex={-1}>
        Lookups
      </h2>
      {from ? <BackToBatch place={from} /> : null}
      <ProductSearch
        key={initialSearch ?? ''}
        environmentId={environment.id}
        {...(initialSearch ? { initialTerm: initialSearch } : {})}
        onPick={(product) =>
          setPicked((last) => ({ dmdCode: product.dmdCode, name: product.name, pick: (last?.pick ?? 0) + 1 }))
        }
      />
      {/* Keyed by the pick, so choosing a product fills the form afresh and checks it. */}
      <StockPriceCheck key={picked?.pick ?? 0} environment={environment} picked={picked} />
      <CourierPriceList environmentId={environment.id} />
    </section>
  );
}
