import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalDetailsJson, type AuditDetails } from '../model/audit-details.js';
import { joinDetails, splitCheckedDetails, splitDetails, VARYING_DETAIL_KEYS } from './audit-details-split.js';

// The compact log keeps an entry's details in two parts (migration 21); the text its link covers must come back
// byte for byte, whatever the details hold.
describe('details kept in two parts', () => {
  const keys = [...VARYING_DETAIL_KEYS, 'operation', 'outcome', 'httpStatus', 'attempt', 'toState', 'masked', 'grant'];
  const value = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.string({ unit: 'grapheme', maxLength: 10 }),
    fc.integer({ min: 0, max: 2 ** 40 }),
    fc.boolean(),
  );
  const details = fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: keys.length });

  it('makes the same canonical text again from the two parts', () => {
    fc.assert(
      fc.property(details, (record) => {
        const text = canonicalDetailsJson(record);
        const { common, ownKeys, values } = splitDetails(text);
        expect(joinDetails(common, ownKeys, values)).toBe(text);
        // The append's way, from the details themselves, splits them the same.
        expect(splitCheckedDetails(record as AuditDetails, text)).toEqual({ common, ownKeys, values });
        // The shared part holds none of an entry's own values; they are all in the entry's part.
        expect(Object.keys(JSON.parse(common) as object).some((key) => VARYING_DETAIL_KEYS.has(key))).toBe(
          values === null && Object.keys(record).some((key) => VARYING_DETAIL_KEYS.has(key)),
        );
      }),
      { numRuns: 2_000 },
    );
  });

  it('shares one text among entries that differ only in their own values', () => {
    const created = (latencyMs: number, remoteId: string) =>
      splitDetails(canonicalDetailsJson({ attempt: 1, httpStatus: 201, latencyMs, operation: 'create', remoteId }));
    expect(created(37, '100001').common).toBe(created(412, '100002').common);
    expect(created(37, '100001')).toMatchObject({ ownKeys: 'latencyMs,remoteId', values: '[37,"100001"]' });
  });

  it('keeps a text whole when it would not come back exactly', () => {
    for (const text of [
      '{"remoteId":"1","attempt":2}',
      '{ "remoteId": "1" }',
      '{"latencyMs":1.50}',
      'not json',
      '[1]',
    ]) {
      expect(splitDetails(text)).toEqual({ common: text, ownKeys: '', values: null });
    }
  });
});
