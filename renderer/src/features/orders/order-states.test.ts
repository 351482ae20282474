import { describe, expect, it } from 'vitest';
import { ORDER_STATE_NAMES } from '../../../../shared/order-views.js';
import { explainOrder, ORDER_STATE_TEXT } from './order-states.js';

describe('order states as the admin reads them', () => {
  it('gives every local state a distinct label', () => {
    const labels = ORDER_STATE_NAMES.map((state) => ORDER_STATE_TEXT[state].label);
    expect(new Set(labels).size).toBe(ORDER_STATE_NAMES.length);
  });

  it('explains a rejection with the service’s reason and field, and offers to send it again', () => {
    const text = explainOrder({
      state: 'rejected',
      attempts: 1,
      lastError: { kind: 'rejected', message: 'Unknown courier code', field: 'prescription.courierCode' },
    });
    expect(text?.explanation).toBe('The service rejected it (Courier): Unknown courier code.');
    expect(text?.action).toMatch(/import it again/);
    expect(text?.button).toBe('retry');
  });

  it('names the field in the words the preview uses, and ends the service’s sentence once', () => {
    const rejected = (message: string, field: string) =>
      explainOrder({ state: 'rejected', attempts: 1, lastError: { kind: 'rejected', message, field } })?.explanation;
    expect(rejected('The order breaks a business rule.', 'deliveryAddress.countryCode')).toBe(
      'The service rejected it (Delivery country): The order breaks a business rule.',
    );
    expect(rejected('Unknown product', 'prescribedItems.1.dmdCode')).toBe(
      'The service rejected it (dm+d code of item 2): Unknown product.',
    );
    // A path the app has no label for is shown as the service wrote it.
    expect(rejected('Bad value', 'prescription.somethingNew')).toBe(
      'The service rejected it (field prescription.somethingNew): Bad value.',
    );
  });

  it('says an order in doubt is looked up, never resent blindly', () => {
    const text = explainOrder({ state: 'in_doubt', attempts: 1, lastError: null });
    expect(text?.explanation).toMatch(/looks it up first/);
    expect(text?.button).toBe('look-up');
  });

  it('has nothing to say about an order that is fine', () => {
    expect(explainOrder({ state: 'created', attempts: 1, lastError: null })).toBeNull();
    expect(explainOrder({ state: 'queued', attempts: 0, lastError: null })).toBeNull();
  });
});
