import type { EnrichmentRepo, StagedItemRow, StoredAnswer } from '../store/enrichment-repo.js';
import { COURIERS_KEY, packsToPrice, priceKey, productAnswerSchema } from './answer-values.js';
import { askableCode, type AnswerLookup } from './order-view.js';

/**
 * The stored answers some orders need, read in a few queries (products and stock by code, then the prices those
 * products lead to, then the courier list), for building their views without a query per item.
 */
export function loadAnswers(
  repo: EnrichmentRepo,
  environmentId: string,
  rows: Iterable<StagedItemRow>,
): AnswerLookup & { codes: Set<string> } {
  const list = [...rows];
  const codes = new Set<string>();
  for (const row of list) {
    const code = askableCode(row.dmdCode);
    if (code !== undefined) codes.add(code);
  }
  const products = repo.answers(environmentId, 'product', codes);
  const stock = repo.answers(environmentId, 'stock', codes);
  const priceKeys = new Set<string>();
  for (const row of list) {
    const code = askableCode(row.dmdCode);
    if (code === undefined) continue;
    const found = productAnswerSchema.safeParse(products.get(code)?.value);
    const packs = packsToPrice(row, found.success ? found.data.products : []);
    if (packs) priceKeys.add(priceKey(code, packs.packs));
  }
  const prices = repo.answers(environmentId, 'price', priceKeys);
  const couriers: StoredAnswer | undefined = repo.answers(environmentId, 'couriers', [COURIERS_KEY]).get(COURIERS_KEY);
  return {
    codes,
    product: (code) => products.get(code),
    stock: (code) => stock.get(code),
    price: (key) => prices.get(key),
    couriers: () => couriers,
  };
}

/** Rows of consecutive orders (as the repo returns them, in file order) grouped per staged order. */
export function* byOrder(rows: Iterable<StagedItemRow>): Generator<StagedItemRow[]> {
  let current: StagedItemRow[] = [];
  for (const row of rows) {
    if (current.length > 0 && current[0]!.stagedOrderId !== row.stagedOrderId) {
      yield current;
      current = [];
    }
    current.push(row);
  }
  if (current.length > 0) yield current;
}
