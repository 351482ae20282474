import { describe, expect, it } from 'vitest';
import { detailsLine } from './audit-labels.js';

describe('detailsLine', () => {
  it('names order states by their label, not their stored code', () => {
    expect(detailsLine({ fromState: 'in_doubt', toState: 'cancel_requested' })).toBe(
      'from: In doubt · to: Cancel requested',
    );
  });

  it('gives durations their unit', () => {
    expect(detailsLine({ httpStatus: 201, latencyMs: 1660 })).toBe('HTTP: 201 · took: 1,660 ms');
    expect(detailsLine({ retryAfterMs: 1500 })).toBe('retry after: 1.5 s');
  });

  it('says how a call ended in words', () => {
    expect(detailsLine({ operation: 'create', outcome: 'in-doubt', errorKind: 'in-doubt' })).toBe(
      'operation: create · outcome: no answer (in doubt) · error: no answer (in doubt)',
    );
    expect(detailsLine({ outcome: 'ok' })).toBe('outcome: answered');
  });

  it('says how many connections a coalesced refusal counted, in words', () => {
    expect(detailsLine({ peer: '127.0.0.1', outcome: 'peer', connectionCount: 1234 })).toBe(
      'peer: 127.0.0.1 · outcome: peer · 1,234 more connections refused in the minute after the first',
    );
    expect(detailsLine({ connectionCount: 1 })).toBe('1 more connection refused in the minute after the first');
  });

  it('says why a connection was refused, which outcome "peer" does not', () => {
    expect(detailsLine({ outcome: 'peer', peer: '10.0.0.9:5100', reason: 'allow-list' })).toBe(
      'outcome: peer · peer: 10.0.0.9:5100 · why: not in the allow-list',
    );
    expect(detailsLine({ reason: 'http' })).toBe('why: began as an HTTP request (a web page sent to the MLLP port?)');
    expect(detailsLine({ reason: 'not-mllp' })).toBe(
      'why: did not begin with an MLLP start byte (TLS to a listener without it, or another protocol)',
    );
    expect(detailsLine({ reason: 'tls', connectionCount: 3 })).toBe(
      'why: TLS handshake failed (no certificate the trusted CA issued, or not TLS) · ' +
        '3 more connections refused in the minute after the first',
    );
    // A reason a newer version writes shows as it is stored.
    expect(detailsLine({ reason: 'toString' })).toBe('why: toString');
  });

  it('says yes and no, and keeps what it has no words for as it is stored', () => {
    expect(detailsLine({ masked: true, format: 'csv' })).toBe('masked: yes · format: csv');
    expect(detailsLine({ outcome: 'kept for ever', toState: 'someday' })).toBe('outcome: kept for ever · to: someday');
  });

  it('names what a batch check, an accept and an edit wrote in words, not stored keys', () => {
    expect(detailsLine({ codeCount: 1, orderCount: 3, uncheckedCount: 0, warningCount: 2 })).toBe(
      'dm+d codes asked about: 1 · orders: 3 · items not checked: 0 · service warnings: 2',
    );
    expect(detailsLine({ orderCount: 2, route: 'v2' })).toBe(
      'orders: 2 · sent as: Orders for clinics the service already knows',
    );
    expect(detailsLine({ fieldPath: 'homeAddress.postCode' })).toBe('field changed: Home postcode');
    expect(detailsLine({ fieldPath: 'prescribedItems.1.quantity' })).toBe('field changed: Quantity (item 2)');
    // A path this version does not know shows as it is stored.
    expect(detailsLine({ fieldPath: 'customer.shoeSize' })).toBe('field changed: customer.shoeSize');
  });
});
