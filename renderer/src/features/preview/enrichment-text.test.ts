import { describe, expect, it } from 'vitest';
import type { EnrichmentRun, ItemEnrichment } from '../../../../shared/enrichment-views.js';
import { parseRoute } from '../workspace/route.js';
import {
  ageText,
  checkBlockedReason,
  courierPhrase,
  itemCheckedAt,
  lookupsHref,
  pricePhrase,
  productPhrase,
  runLine,
  stockPhrase,
} from './enrichment-text.js';

const T0 = '2026-01-05T10:00:00.000Z';
const NOW = Date.parse('2026-01-05T10:05:30.000Z');

describe('the service check in words', () => {
  it('says how old an answer is', () => {
    expect(ageText(T0, Date.parse(T0) + 20_000)).toBe('just now');
    expect(ageText(T0, NOW)).toBe('5 minutes ago');
    expect(ageText(T0, Date.parse(T0) + 3 * 3_600_000)).toBe('3 hours ago');
    expect(ageText(T0, Date.parse(T0) + 4 * 86_400_000)).toBe('4 days ago');
    expect(ageText('not a time', NOW)).toBe('');
  });

  it('marks every state with a symbol and words, not colour alone, and says why something was not checked', () => {
    expect(stockPhrase({ state: 'out-of-stock', checkedAt: T0, recheckFailed: null })).toEqual({
      mark: '⚠',
      tone: 'warn',
      text: 'Out of stock (the order can still be sent)',
    });
    expect(productPhrase({ state: 'unknown', checkedAt: T0, recheckFailed: null }).text).toMatch(
      /^Unknown to the service/,
    );
    expect(
      productPhrase({
        state: 'found',
        products: [{ productId: 1001, name: 'Paracetamol 500mg tablets', packSize: 32, form: null, strength: null }],
        checkedAt: T0,
        recheckFailed: null,
      }).text,
    ).toBe('Paracetamol 500mg tablets (product id 1001, pack of 32)');
    const offline = {
      state: 'not-checked',
      reason: 'offline',
      message: 'Not checked: offline.',
      triedAt: null,
    } as const;
    expect(stockPhrase(offline)).toEqual({ mark: '–', tone: 'muted', text: 'Not checked: offline.' });
    expect(
      pricePhrase({
        state: 'priced',
        totalPacks: 2,
        packsFrom: 'quantity',
        unitPrice: 1.15,
        totalPrice: 2.3,
        currencyCode: 'GBP',
        checkedAt: T0,
        recheckFailed: null,
      }).text,
    ).toBe('2 packs, worked out from the quantity: £2.30 (£1.15 each)');
    expect(
      courierPhrase({
        state: 'not-listed',
        courierCode: 'PFW48',
        listed: ['RMT24', 'DPD'],
        checkedAt: T0,
        recheckFailed: null,
      }).text,
    ).toBe("PFW48 is not on the service's courier list (it lists RMT24, DPD)");
  });

  it('dates an item by its oldest answer', () => {
    const item: ItemEnrichment = {
      index: 0,
      dmdCode: '322236009',
      product: { state: 'unknown', checkedAt: '2026-01-05T10:02:00.000Z', recheckFailed: null },
      stock: { state: 'in-stock', checkedAt: T0, recheckFailed: null },
      price: { state: 'not-checked', reason: 'no-product', message: '', triedAt: null },
    };
    expect(itemCheckedAt(item)).toBe(T0);
  });

  it('sums up the last check with its time', () => {
    const run = {
      outcome: 'complete',
      finishedAt: T0,
      message: 'Checked 4 dm+d codes.',
      counts: { warnings: 3, ordersWithWarnings: 2 },
    } as EnrichmentRun;
    const line = runLine(run, NOW);
    expect(line.mark).toBe('⚠');
    expect(line.text).toContain('(5 minutes ago). Checked 4 dm+d codes. 3 service warnings in 2 orders.');
  });

  it('says why the check cannot start: offline, no client id, signed out', () => {
    const base = { online: true, signedIn: true, environmentName: 'Local sandbox', hasClientId: true };
    expect(checkBlockedReason(base)).toBeUndefined();
    expect(checkBlockedReason({ ...base, signedIn: undefined })).toBeUndefined();
    expect(checkBlockedReason({ ...base, online: false })).toMatch(/offline/);
    expect(checkBlockedReason({ ...base, hasClientId: false })).toMatch(/no client id/);
    expect(checkBlockedReason({ ...base, signedIn: false })).toBe(
      'Sign in to Local sandbox to check stock, prices and couriers.',
    );
  });

  it('links to the Lookups search for a code or a medication', () => {
    expect(parseRoute(lookupsHref('177803111000001105'))).toEqual({ section: 'lookups', search: '177803111000001105' });
    expect(parseRoute(lookupsHref(' Tadalafil 10mg tablets '))).toEqual({
      section: 'lookups',
      search: 'Tadalafil 10mg tablets',
    });
    expect(parseRoute(lookupsHref('322236009', { batchId: 3, stagedOrderId: 41 }))).toEqual({
      section: 'lookups',
      search: '322236009',
      batch: { batchId: 3, stagedOrderId: 41 },
    });
  });
});
