import { describe, expect, it } from 'vitest';
import { ORDER_STATE_NAMES, RELEASED_TO_LOOK_UP_MESSAGE } from '../../../../shared/order-views.js';
import { formatDateTime } from '../format/format-date.js';
import { explainOrder, ORDER_STATE_TEXT } from './order-states.js';

/** The identifiers explainOrder names an order by, around what a case is about. */
const ids = { clinicOrderId: 'RX-2025-000123', pharmacyOrderId: 100234 };

describe('order states as the admin reads them', () => {
  it('gives every local state a distinct label', () => {
    const labels = ORDER_STATE_NAMES.map((state) => ORDER_STATE_TEXT[state].label);
    expect(new Set(labels).size).toBe(ORDER_STATE_NAMES.length);
  });

  it('explains a rejection with the service’s reason and field, and offers to send it again', () => {
    const text = explainOrder({
      ...ids,
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
      explainOrder({ ...ids, state: 'rejected', attempts: 1, lastError: { kind: 'rejected', message, field } })
        ?.explanation;
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
    const text = explainOrder({ ...ids, state: 'in_doubt', attempts: 1, lastError: null });
    expect(text?.explanation).toMatch(/looks it up first/);
    expect(text?.button).toBe('look-up');
  });

  it('says a released order whose send once went unanswered is looked up before it is sent again', () => {
    const lastError = { kind: 'in-doubt' as const, message: RELEASED_TO_LOOK_UP_MESSAGE, field: null };
    const text = explainOrder({ ...ids, state: 'in_doubt', attempts: 2, lastError });
    expect(text?.explanation).toMatch(/^Released to be sent again\. .*looks it up first and sends it again only if/);
    expect(text?.button).toBe('look-up');
  });

  it('has nothing to say about an order that is fine', () => {
    expect(explainOrder({ ...ids, state: 'created', attempts: 1, lastError: null })).toBeNull();
    expect(explainOrder({ ...ids, state: 'queued', attempts: 0, lastError: null })).toBeNull();
  });

  it('says why a created order the service no longer finds needs a person, naming it, and that it is still looked up', () => {
    const since = '2025-03-03T09:00:00.000Z';
    const text = explainOrder({
      ...ids,
      state: 'created',
      attempts: 1,
      lastError: null,
      notFoundAtService: { lookups: 3, since, flaggedAt: '2025-03-03T10:05:00.000Z' },
    });
    expect(text?.explanation).toBe(
      `The service has not found order RX-2025-000123 (pharmacy id 100234) on 3 lookups since ${formatDateTime(since)}; it may have been removed at the service, or this environment points at another service.`,
    );
    expect(text?.action).toMatch(/clears by itself once the service finds it/);
    // Nothing to send again: the order exists as far as this computer knows, and is looked up as before.
    expect(text?.button).toBeNull();
  });

  it('says what the service listed for a created order instead of its own record, and that it is still looked up', () => {
    const text = explainOrder({
      ...ids,
      state: 'created',
      attempts: 1,
      lastError: null,
      listedDifferently: { clinicOrderId: 'RX-2025-000123', pharmacyOrderId: '100999', at: '2025-03-03T09:00:00.000Z' },
    });
    expect(text?.explanation).toBe(
      `The service lists order RX-2025-000123 (pharmacy id 100234) as clinic order id "RX-2025-000123", pharmacy id 100999: its pharmacy id is not the one the create returned, so the record is not taken as this order (it may be another) and the order's status is not updated from it.`,
    );
    expect(text?.action).toMatch(/clears by itself once the service lists the order under its own ids/);
    expect(text?.button).toBeNull();
    expect(
      explainOrder({
        ...ids,
        state: 'created',
        attempts: 1,
        lastError: null,
        listedDifferently: { clinicOrderId: 'rx-2025-000123', pharmacyOrderId: null, at: '2025-03-03T09:00:00.000Z' },
      })?.explanation,
    ).toMatch(
      /as clinic order id "rx-2025-000123", pharmacy id none: its clinic order id differs only in case or spaces/,
    );
  });

  it('gives the state its own reason first when an order flagged as not found also has one', () => {
    const text = explainOrder({
      ...ids,
      state: 'cancel_refused',
      attempts: 1,
      lastError: { kind: 'rejected', message: 'already dispatched', field: null },
      notFoundAtService: { lookups: 4, since: '2025-03-03T09:00:00.000Z', flaggedAt: '2025-03-03T10:05:00.000Z' },
    });
    expect(text?.explanation).toMatch(/^The pharmacy refused the cancel/);
  });
});
