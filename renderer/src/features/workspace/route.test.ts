import { describe, expect, it } from 'vitest';
import { parseRoute, routeHref } from './route.js';

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

  it('opens the submissions screen for an empty or unknown fragment (the launch secret included)', () => {
    expect(parseRoute('')).toEqual({ section: 'submissions' });
    expect(parseRoute('#/nowhere')).toEqual({ section: 'submissions' });
    expect(parseRoute('#secret=abcdefghijklmnopqrstuvwxyz')).toEqual({ section: 'submissions' });
    expect(parseRoute('#/log/12')).toEqual({ section: 'log' });
  });
});
