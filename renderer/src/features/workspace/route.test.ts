import { describe, expect, it } from 'vitest';
import { importRoute, parseRoute, replacedHash, routeHref, samePlace } from './route.js';

describe('workspace routes', () => {
  it('reads sections and an open order from the fragment, and writes them back', () => {
    expect(parseRoute('#/log')).toEqual({ section: 'log' });
    expect(parseRoute('#/orders/42')).toEqual({ section: 'orders', orderId: 42 });
    expect(routeHref({ section: 'orders', orderId: 42 })).toBe('#/orders/42');
    expect(routeHref(parseRoute('#/settings'))).toBe('#/settings');
  });

  it('carries a product search to the lookups screen, and nowhere else', () => {
    const href = routeHref({ section: 'lookups', search: '177803111000001105' });
    expect(href).toBe('#/lookups?search=177803111000001105');
    expect(parseRoute(href)).toEqual({ section: 'lookups', search: '177803111000001105' });
    const named = routeHref({ section: 'lookups', search: 'Paracetamol 500mg & co' });
    expect(parseRoute(named)).toEqual({ section: 'lookups', search: 'Paracetamol 500mg & co' });
    expect(parseRoute('#/lookups?search=')).toEqual({ section: 'lookups' });
    expect(parseRoute('#/log?search=x')).toEqual({ section: 'log' });
  });

  it('carries the batch preview a lookup came from, and back to the same order', () => {
    const from = { batchId: 12, stagedOrderId: 345 };
    const lookup = routeHref({ section: 'lookups', search: '322236009', batch: from });
    expect(lookup).toBe('#/lookups?search=322236009&batch=12&order=345');
    expect(parseRoute(lookup)).toEqual({ section: 'lookups', search: '322236009', batch: from });
    const back = routeHref({ section: 'import', batch: from });
    expect(back).toBe('#/import?batch=12&order=345');
    expect(parseRoute(back)).toEqual({ section: 'import', batch: from });
    // A batch without an order opens the preview at its top.
    expect(parseRoute('#/import?batch=7')).toEqual({ section: 'import', batch: { batchId: 7 } });
    expect(parseRoute('#/lookups?batch=7&search=x')).toEqual({
      section: 'lookups',
      search: 'x',
      batch: { batchId: 7 },
    });
  });

  it('gives the Import screen the address of the preview it shows, the order only while it opened there', () => {
    // Opened from Lookups at an order: the address keeps it (a reload opens the same order).
    expect(routeHref(importRoute({ batchId: 12, stagedOrderId: 345 }))).toBe('#/import?batch=12&order=345');
    // Another batch opened from the recent list, or a new import's batch: just that batch, no stale order.
    expect(routeHref(importRoute({ batchId: 13 }))).toBe('#/import?batch=13');
    expect(parseRoute(routeHref(importRoute({ batchId: 13 })))).toEqual({ section: 'import', batch: { batchId: 13 } });
    // No preview open: the bare section.
    expect(routeHref(importRoute(undefined))).toBe('#/import');
    expect(samePlace({ batchId: 12, stagedOrderId: 345 }, { batchId: 12, stagedOrderId: 345 })).toBe(true);
    expect(samePlace({ batchId: 12, stagedOrderId: 345 }, { batchId: 12 })).toBe(false);
    expect(samePlace(undefined, undefined)).toBe(true);
    expect(samePlace({ batchId: 12 }, undefined)).toBe(false);
  });

  it('ignores batch and order ids that are not plain positive ids, and batch places on other sections', () => {
    for (const bad of ['0', '-3', '1.5', '0x10', '012', ' 12', '1e3', '9999999999999999', '']) {
      expect(parseRoute(`#/import?batch=${encodeURIComponent(bad)}&order=5`)).toEqual({ section: 'import' });
      expect(parseRoute(`#/import?batch=4&order=${encodeURIComponent(bad)}`)).toEqual({
        section: 'import',
        batch: { batchId: 4 },
      });
    }
    // An order without its batch says nothing to go back to.
    expect(parseRoute('#/lookups?search=x&order=5')).toEqual({ section: 'lookups', search: 'x' });
    expect(parseRoute('#/log?batch=3&order=4')).toEqual({ section: 'log' });
    expect(parseRoute('#/orders/42?batch=3')).toEqual({ section: 'orders', orderId: 42 });
  });

  it('opens the submissions screen for an empty or unknown fragment (the launch secret included)', () => {
    expect(parseRoute('')).toEqual({ section: 'submissions' });
    expect(parseRoute('#/nowhere')).toEqual({ section: 'submissions' });
    expect(parseRoute('#secret=abcdefghijklmnopqrstuvwxyz')).toEqual({ section: 'submissions' });
    expect(parseRoute('#/log/12')).toEqual({ section: 'log' });
  });

  it('lets a screen rewrite its own address, never one that has moved to another section', () => {
    // A new import's batch opened: the Import screen's address names it.
    expect(replacedHash('#/import', importRoute({ batchId: 13 }))).toBe('#/import?batch=13');
    expect(replacedHash('#/import?batch=12&order=345', importRoute({ batchId: 12 }))).toBe('#/import?batch=12');
    // Already said: nothing to replace.
    expect(replacedHash('#/import?batch=13', importRoute({ batchId: 13 }))).toBeUndefined();
    // The admin clicked Intake as the import finished: the screen on its way out leaves the new address alone.
    expect(replacedHash('#/intake', importRoute({ batchId: 13 }))).toBeUndefined();
    expect(replacedHash('#/lookups?search=x&batch=13', importRoute({ batchId: 13 }))).toBeUndefined();
    // No fragment at all is the default section, not the Import screen's.
    expect(replacedHash('', importRoute({ batchId: 13 }))).toBeUndefined();
  });
});
