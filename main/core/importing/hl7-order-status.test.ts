import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { importHl7Message } from './import-message.js';
import { writeRde011 } from './rde-writer.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * Public RDE^O11 and ORM^O01 samples fill ORC-5 (order status, HL7 table 0038) on a new order: `ORC|NW|ORDER12345||
 * GROUP123|IP|…` (in process) or `SC` (scheduled). A status of CA (cancelled) or DC (discontinued) under ORC-1 NW
 * was read as a new order to dispense, although the sender says it was stopped.
 */

const PROFILE: MappingProfile = {
  name: 'HL7 clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};

const BASE = writeRde011(exampleOrder('S-1'), { timestamp: '20250101120000' }).split('\r');

function withOrderStatus(raw: string): string[] {
  return BASE.map((segment) => {
    if (!segment.startsWith('ORC|')) return segment;
    const parts = segment.split('|');
    parts[5] = raw;
    return parts.join('|');
  });
}

async function importSegments(segments: readonly string[]) {
  const { orders } = await importHl7Message(Buffer.from(segments.join('\r')), 'status.hl7', {
    codeLists: DEFAULT_CODE_LISTS,
    profile: PROFILE,
    today: new Date('2025-06-01T00:00:00Z'),
  });
  expect(orders).toHaveLength(1);
  return orders[0]!.order;
}

describe('ORC-5: a new order whose status says it was stopped', () => {
  it.each([
    ['CA', "'CA', cancelled"],
    ['DC', "'DC', discontinued"],
    ['dc', "'DC', discontinued"],
  ])('ORC-5 %s under ORC-1 NW is an error naming the status', async (raw, said) => {
    const order = await importSegments(withOrderStatus(raw));
    expect(order.valid).toBe(false);
    const stopped = order.problems.filter((p) => p.code === 'hl7.orderStopped');
    expect(stopped).toHaveLength(1);
    expect(stopped[0]).toMatchObject({ severity: 'error', file: 'status.hl7', message: 1 });
    expect(stopped[0]!.text).toContain(`ORC-5 (order status) is ${said}`);
    expect(stopped[0]!.text).toContain('ORC-1 is NW');
  });

  it.each(['', 'IP', 'SC', 'HD', 'CM'])('ORC-5 %j: the order stays valid', async (raw) => {
    const order = await importSegments(withOrderStatus(raw));
    expect(order.problems).toEqual([]);
    expect(order.valid).toBe(true);
  });
});
