import type { StagedItemRow } from '../store/enrichment-repo.js';
import type { ProductInfo } from '../../../shared/enrichment-views.js';
import { packsToPrice } from './answer-values.js';
import { askableCode } from './order-view.js';

/**
 * What a batch needs asked, deduplicated: each distinct dm+d code once (with the pack counts and quantities its
 * items give, for the price questions), and whether any order has a courier code. A 50,000-order batch usually
 * comes down to a few hundred codes.
 */

export interface CodeNeeds {
  code: string;
  /** Pack counts items give directly. */
  packs: Set<number>;
  /** Quantities of items without a pack count (priced as quantity ÷ pack size once the pack size is known). */
  quantities: Set<number>;
}

export interface BatchPlan {
  codes: Map<string, CodeNeeds>;
  courierCodes: Set<string>;
}

/** Reads the rows in one synchronous pass (the repo's cursor must not stay open across an await). */
export function planBatch(rows: Iterable<StagedItemRow>): BatchPlan {
  const codes = new Map<string, CodeNeeds>();
  const courierCodes = new Set<string>();
  for (const row of rows) {
    if (row.courierCode !== null && row.courierCode.trim() !== '') courierCodes.add(row.courierCode);
    const code = askableCode(row.dmdCode);
    if (code === undefined) continue;
    let needs = codes.get(code);
    if (!needs) codes.set(code, (needs = { code, packs: new Set(), quantities: new Set() }));
    const direct = packsToPrice({ pack: row.pack, quantity: null }, []);
    if (direct) needs.packs.add(direct.packs);
    else if (row.quantity !== null && row.quantity >= 1) needs.quantities.add(row.quantity);
  }
  return { codes, courierCodes };
}

/** The distinct pack counts to price for a code, once its products (and so its pack size) are known. */
export function packsNeeded(needs: CodeNeeds, products: readonly ProductInfo[]): number[] {
  const packs = new Set(needs.packs);
  for (const quantity of needs.quantities) {
    const derived = packsToPrice({ pack: null, quantity }, products);
    if (derived) packs.add(derived.packs);
  }
  return [...packs].sort((a, b) => a - b);
}
