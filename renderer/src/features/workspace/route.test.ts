import { describe, expect, it } from 'vitest';
import { parseRoute, routeHref } from './route.js';

describe('workspace routes', () => {
  it('reads sections and an open order from the fragment, and writes them back', () => {
    expect(parseRoute('#/log')).toEqual({ section: 'log' });
    expect(parseRoute('#/orders/42')).toEqual({ section: 'orders', orderId: 42 });
    expect(routeHref({ section: 'orders', orderId: 42 })).toBe('#/orders/42');
    expect(routeHref(parseRoute('#/settings'))).toBe('#/settings');
  });

  it('opens the submissions screen for an empty or unknown fragment (the launch secret included)', () => {
    expect(parseRoute('')).toEqual({ section: 'submissions' });
    expect(parseRoute('#/nowhere')).toEqual({ section: 'submissions' });
    expect(parseRoute('#secret=abcdefghijklmnopqrstuvwxyz')).toEqual({ section: 'submissions' });
    expect(parseRoute('#/log/12')).toEqual({ section: 'log' });
  });
});
