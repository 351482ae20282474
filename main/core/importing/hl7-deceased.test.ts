import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { importHl7Message } from './import-message.js';
import { writeRde011 } from './rde-writer.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * HL7-to-FHIR converters' tests (zato's among them) send a PID that ends `…|20240101120000|Y`: PID-29 the date and
 * time of death, PID-30 the death indicator. An order for a patient the sender records as dead was read as a valid
 * order, its medicine to be sent to the home address.
 */

const PROFILE: MappingProfile = {
  name: 'HL7 clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};

const BASE = writeRde011(exampleOrder('D-1'), { timestamp: '20250101120000' }).split('\r');

function withPid(fields: Record<number, string>): string[] {
  return BASE.map((segment) => {
    if (!segment.startsWith('PID|')) return segment;
    const parts = segment.split('|');
    for (const [at, raw] of Object.entries(fields)) {
      while (parts.length <= Number(at)) parts.push('');
      parts[Number(at)] = raw;
    }
    return parts.join('|');
  });
}

async function importSegments(segments: readonly string[]) {
  const { orders } = await importHl7Message(Buffer.from(segments.join('\r')), 'deceased.hl7', {
    codeLists: DEFAULT_CODE_LISTS,
    profile: PROFILE,
    today: new Date('2025-06-01T00:00:00Z'),
  });
  expect(orders).toHaveLength(1);
  return orders[0]!.order;
}

describe('PID-29 / PID-30: a patient recorded as deceased', () => {
  it.each([
    [
      'date of death and indicator Y',
      { 29: '20240101120000', 30: 'Y' },
      ["PID-30 (death indicator) is 'Y'", '2024-01-01'],
    ],
    ['indicator Y only', { 30: 'Y' }, ["PID-30 (death indicator) is 'Y'"]],
    ['indicator y, lower case', { 30: 'y' }, ["PID-30 (death indicator) is 'Y'"]],
    ['date of death only', { 29: '20240101' }, ['PID-29 (date of death) is 2024-01-01']],
  ])('%s is an error naming the field', async (_, fields, said) => {
    const order = await importSegments(withPid(fields));
    expect(order.valid).toBe(false);
    const deceased = order.problems.filter((p) => p.code === 'hl7.patientDeceased');
    expect(deceased).toHaveLength(1);
    expect(deceased[0]).toMatchObject({ severity: 'error', file: 'deceased.hl7', message: 1 });
    for (const text of said) expect(deceased[0]!.text).toContain(text);
    expect(deceased[0]!.text).toContain('Message 1');
  });

  it.each([
    ['indicator N', { 30: 'N' }],
    ['both empty', { 29: '', 30: '' }],
    ['an explicit HL7 null in PID-29', { 29: '""', 30: 'N' }],
  ])('%s: the order stays valid', async (_, fields) => {
    const order = await importSegments(withPid(fields));
    expect(order.problems).toEqual([]);
    expect(order.valid).toBe(true);
  });
});
