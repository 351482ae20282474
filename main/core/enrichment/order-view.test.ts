import { describe, expect, it } from 'vitest';
import type { StagedItemRow, StoredAnswer } from '../store/enrichment-repo.js';
import { COURIERS_KEY, packsToPrice, priceKey } from './answer-values.js';
import { orderEnrichment, type AnswerLookup, type CancelledCheck } from './order-view.js';

// Views built from stored answers, with no service and no store: what the preview shows for each state.

const PARACETAMOL = '322236009';
const TADALAFIL = '177803111000001105';
const T0 = '2026-01-05T10:00:00.000Z';
const T1 = '2026-01-05T11:00:00.000Z';

function row(overrides: Partial<StagedItemRow>): StagedItemRow {
  return {
    stagedOrderId: 7,
    position: 3,
    courierCode: 'RMT24',
    itemIndex: 0,
    dmdCode: PARACETAMOL,
    productId: null,
    pack: null,
    quantity: null,
    editedAt: null,
    acceptedAt: null,
    ...overrides,
  };
}

function answer(kind: StoredAnswer['kind'], key: string, value: unknown, failure?: StoredAnswer['failure']) {
  return {
    kind,
    key,
    value,
    fetchedAt: value === null ? null : T0,
    failure: failure ?? null,
    failureMessage: failure ? 'boom' : null,
    failedAt: failure ? T1 : null,
  } satisfies StoredAnswer;
}

function lookup(answers: StoredAnswer[]): AnswerLookup {
  const find = (kind: StoredAnswer['kind'], key: string) => answers.find((a) => a.kind === kind && a.key === key);
  return {
    product: (code) => find('product', code),
    stock: (code) => find('stock', code),
    price: (key) => find('price', key),
    couriers: () => find('couriers', COURIERS_KEY),
  };
}

const paracetamol = {
  productId: 1001,
  name: 'Paracetamol 500mg tablets',
  packSize: 32,
  form: 'Tablet',
  strength: '500mg',
};
const tadalafil = { productId: 1023, name: 'Tadalafil 10mg tablets', packSize: 4, form: 'Tablet', strength: '10mg' };
const couriers = answer('couriers', COURIERS_KEY, {
  options: [{ courierCode: 'RMT24', deliveryOption: 'Royal Mail Tracked 24', price: 3.95, currencyCode: 'GBP' }],
});

describe('what the preview shows of an order', () => {
  it('works out packs from the pack count, else from the quantity and a single pack size, else not at all', () => {
    expect(packsToPrice({ pack: 3, quantity: 999 }, [])).toEqual({ packs: 3, from: 'pack' });
    expect(packsToPrice({ pack: null, quantity: 65 }, [{ packSize: 32 }])).toEqual({ packs: 3, from: 'quantity' });
    expect(packsToPrice({ pack: null, quantity: 65 }, [{ packSize: 32 }, { packSize: 16 }])).toBeUndefined();
    expect(packsToPrice({ pack: null, quantity: 65 }, [{ packSize: null }])).toBeUndefined();
    expect(packsToPrice({ pack: null, quantity: null }, [{ packSize: 32 }])).toBeUndefined();
  });

  it('shows products, stock, prices and the courier with their times, flags out of stock, and totals the order', () => {
    const view = orderEnrichment(
      [row({ pack: 2 }), row({ itemIndex: 1, dmdCode: TADALAFIL, quantity: 8, productId: 1023 })],
      lookup([
        answer('product', PARACETAMOL, { products: [paracetamol] }),
        answer('stock', PARACETAMOL, { inStock: true }),
        answer('price', priceKey(PARACETAMOL, 2), {
          totalPacks: 2,
          unitPrice: 0.89,
          totalPrice: 1.78,
          currencyCode: 'GBP',
        }),
        answer('product', TADALAFIL, { products: [tadalafil] }),
        answer('stock', TADALAFIL, { inStock: false }),
        answer('price', priceKey(TADALAFIL, 2), {
          totalPacks: 2,
          unitPrice: 2.6,
          totalPrice: 5.2,
          currencyCode: 'GBP',
        }),
        couriers,
      ]),
    );
    expect(view.items[0]).toMatchObject({
      product: { state: 'found', products: [paracetamol], checkedAt: T0, recheckFailed: null },
      stock: { state: 'in-stock', checkedAt: T0 },
      price: { state: 'priced', totalPacks: 2, packsFrom: 'pack', totalPrice: 1.78 },
    });
    expect(view.items[1]).toMatchObject({
      stock: { state: 'out-of-stock' },
      price: { state: 'priced', totalPacks: 2, packsFrom: 'quantity' },
    });
    expect(view.courier).toMatchObject({ state: 'listed', deliveryOption: 'Royal Mail Tracked 24', price: 3.95 });
    expect(view.total).toEqual({ totalPrice: 6.98, currencyCode: 'GBP' });
    expect(view.warnings).toEqual([
      {
        source: 'service',
        stagedOrderId: 7,
        itemIndex: 1,
        field: 'prescribedItems.1.dmdCode',
        code: 'service.outOfStock',
        text: 'Out of stock at the service: Tadalafil 10mg tablets. The order can still be sent.',
        checkedAt: T0,
      },
    ]);
  });

  it('warns of unknown codes, a product id the code does not list, and a courier not on the list', () => {
    const view = orderEnrichment(
      [row({ courierCode: 'PFW48', productId: 55, pack: 1 }), row({ itemIndex: 1, dmdCode: TADALAFIL, pack: 1 })],
      lookup([
        answer('product', PARACETAMOL, { products: [paracetamol] }),
        answer('product', TADALAFIL, { products: [] }),
        couriers,
      ]),
    );
    expect(view.warnings.map((w) => [w.code, w.field, w.itemIndex])).toEqual([
      ['service.productMismatch', 'prescribedItems.0.productId', 0],
      ['service.unknownCode', 'prescribedItems.1.dmdCode', 1],
      ['service.unknownCourier', 'prescription.courierCode', null],
    ]);
    expect(view.warnings[2]!.text).toBe('Courier code "PFW48" is not on the service\'s courier list (RMT24).');
    // Stock and price of an unknown code are not asked: there is no product.
    expect(view.items[1]!.stock).toMatchObject({ state: 'not-checked', reason: 'no-product' });
    // Never asked: said so, never guessed.
    expect(view.items[0]!.stock).toMatchObject({ state: 'not-checked', reason: 'never', triedAt: null });
    expect(view.total).toBeNull();
  });

  it('says why something was not checked: offline for what the failed search held up, an older answer kept', () => {
    const view = orderEnrichment(
      [row({ pack: 1 }), row({ itemIndex: 1, dmdCode: TADALAFIL, pack: 1 }), row({ itemIndex: 2, dmdCode: '123' })],
      lookup([
        // Searched before; the re-check failed offline: the old answer is shown with its time and the failure.
        answer('product', PARACETAMOL, { products: [paracetamol] }, 'offline'),
        answer('product', TADALAFIL, null, 'offline'),
        answer('couriers', COURIERS_KEY, null, 'signed-out'),
      ]),
    );
    expect(view.items[0]!.product).toMatchObject({
      state: 'found',
      checkedAt: T0,
      recheckFailed: { reason: 'offline', at: T1 },
    });
    // Stock never asked because the search failed: offline, not "never".
    expect(view.items[0]!.stock).toMatchObject({ state: 'not-checked', reason: 'offline', triedAt: T1 });
    expect(view.items[1]!.product).toEqual({
      state: 'not-checked',
      reason: 'offline',
      message: 'Not checked: the service could not be reached.',
      triedAt: T1,
    });
    expect(view.items[1]!.price).toMatchObject({ state: 'not-checked', reason: 'offline' });
    expect(view.items[2]!.product).toMatchObject({ state: 'not-checked', reason: 'invalid-code' });
    expect(view.courier).toMatchObject({ state: 'not-checked', reason: 'signed-out' });
    expect(view.warnings).toEqual([]);
  });

  it('reads a damaged stored answer as not checked, never as an answer', () => {
    const view = orderEnrichment([row({ pack: 1 })], lookup([answer('product', PARACETAMOL, { products: 'many' })]));
    expect(view.items[0]!.product).toMatchObject({ state: 'not-checked', reason: 'never' });
  });

  describe('after a cancelled check', () => {
    // Answers came at T0, failures at T1; this check started after both and was cancelled a minute later.
    const cancelled: CancelledCheck = { startedAt: '2026-01-05T12:00:00.000Z', finishedAt: '2026-01-05T12:01:00.000Z' };
    const stored = lookup([
      answer('product', PARACETAMOL, { products: [paracetamol] }),
      answer('product', TADALAFIL, null, 'offline'),
      answer('couriers', COURIERS_KEY, null, 'signed-out'),
    ]);
    const rows = (changes: Partial<StagedItemRow> = {}) => [
      row({ pack: 1, ...changes }),
      row({ itemIndex: 1, dmdCode: TADALAFIL, pack: 1, ...changes }),
      row({ itemIndex: 2, dmdCode: '123', ...changes }),
    ];
    const reasons = (view: ReturnType<typeof orderEnrichment>) => [
      ...view.items.map((item) =>
        [item.product, item.stock, item.price].map((state) =>
          state.state === 'not-checked' ? state.reason : state.state,
        ),
      ),
      view.courier.state === 'not-checked' ? view.courier.reason : view.courier.state,
    ];

    it('reads what it did not get to as cancelled: never asked, or only tried before it; answers and bad codes stand', () => {
      const view = orderEnrichment(rows(), stored, cancelled);
      expect(reasons(view)).toEqual([
        ['found', 'cancelled', 'cancelled'],
        ['cancelled', 'cancelled', 'cancelled'],
        ['invalid-code', 'invalid-code', 'invalid-code'],
        'cancelled',
      ]);
      expect(view.items[0]!.stock).toEqual({
        state: 'not-checked',
        reason: 'cancelled',
        message: 'Not checked: the check was cancelled before this was answered. Check again to finish it.',
        triedAt: cancelled.finishedAt,
      });
    });

    it('keeps the failures the cancelled check recorded itself', () => {
      const earlier = { startedAt: '2026-01-05T10:30:00.000Z', finishedAt: '2026-01-05T11:30:00.000Z' };
      expect(reasons(orderEnrichment(rows(), stored, earlier))).toEqual([
        ['found', 'cancelled', 'cancelled'],
        ['offline', 'offline', 'offline'],
        ['invalid-code', 'invalid-code', 'invalid-code'],
        'signed-out',
      ]);
    });

    it('leaves out orders it did not cover: edited since it started, or accepted before it', () => {
      const notCovered = [
        ['found', 'never', 'never'],
        ['offline', 'offline', 'offline'],
        ['invalid-code', 'invalid-code', 'invalid-code'],
        'signed-out',
      ];
      expect(reasons(orderEnrichment(rows({ editedAt: '2026-01-05T12:00:30.000Z' }), stored, cancelled))).toEqual(
        notCovered,
      );
      expect(reasons(orderEnrichment(rows({ acceptedAt: '2026-01-05T11:59:00.000Z' }), stored, cancelled))).toEqual(
        notCovered,
      );
      // Edited before it started, or accepted while it ran: it covered them.
      const changedBefore = { editedAt: '2026-01-05T11:00:00.000Z', acceptedAt: '2026-01-05T12:00:30.000Z' };
      expect(reasons(orderEnrichment(rows(changedBefore), stored, cancelled))[0]).toEqual([
        'found',
        'cancelled',
        'cancelled',
      ]);
    });
  });
});
