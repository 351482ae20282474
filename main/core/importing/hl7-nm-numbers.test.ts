import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { importHl7Message } from './import-message.js';
import { writeRde011 } from './rde-writer.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * RXE-10 (dispense amount) is an HL7 NM: a leading + or -, any leading zeros, at most one decimal point, with or
 * without digits on either side of it (`32.`, `.5`). A whole number written so is the number; a fraction is refused. An exponent (`1e3`), which NM has not, is refused in words that fit an HL7 file.
 */

const PROFILE: MappingProfile = {
  name: 'HL7 clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};

const BASE = writeRde011(exampleOrder('NM-1'), { timestamp: '20250101120000' }).split('\r');

function withRxe10(raw: string): string {
  return BASE.map((segment) => {
    if (!segment.startsWith('RXE|')) return segment;
    const parts = segment.split('|');
    parts[10] = raw;
    return parts.join('|');
  }).join('\r');
}

async function importQuantity(raw: string) {
  const { orders } = await importHl7Message(Buffer.from(withRxe10(raw)), 'nm.hl7', {
    codeLists: DEFAULT_CODE_LISTS,
    profile: PROFILE,
    today: new Date('2025-06-01T00:00:00Z'),
  });
  expect(orders).toHaveLength(1);
  return orders[0]!.order;
}

describe('RXE-10 written as HL7 NM allows', () => {
  it.each([
    ['32.', 32],
    ['+32', 32],
    ['0032', 32],
    ['+0032.', 32],
    ['32.000', 32],
    ['032.0', 32],
  ])('%s is the whole number %d', async (raw, quantity) => {
    const order = await importQuantity(raw);
    expect(order.problems.filter((p) => p.field === 'prescribedItems.0.quantity')).toEqual([]);
    expect(order.body).toMatchObject({ prescribedItems: [{ quantity }] });
  });

  it.each(['.5', '32.5', '+.25', '0.5'])(
    '%s is refused as not a whole number, naming file, message and field',
    async (raw) => {
      const order = await importQuantity(raw);
      expect(order.valid).toBe(false);
      const found = order.problems.filter((p) => p.field === 'prescribedItems.0.quantity');
      expect(found).toMatchObject([{ code: 'value.notWholeNumber', file: 'nm.hl7', message: 1, severity: 'error' }]);
      expect(found[0]!.text).toContain(`'${raw}' (RXE-10.1) is not a whole number`);
    },
  );

  it.each(['.', '+', '3.2.', '--3'])('%s is no number at all', async (raw) => {
    const order = await importQuantity(raw);
    expect(order.problems.filter((p) => p.field === 'prescribedItems.0.quantity')).toMatchObject([
      { code: 'value.notNumber' },
    ]);
  });
});
describe('RXE-10 with an exponent', () => {
  it('is refused in words for an HL7 file, not a spreadsheet, saying what to send', async () => {
    const order = await importQuantity('1e3');
    const [found] = order.problems.filter((p) => p.field === 'prescribedItems.0.quantity');
    expect(found).toMatchObject({ code: 'value.excelMangled', file: 'nm.hl7', message: 1, severity: 'error' });
    expect(found!.text).not.toMatch(/spreadsheet|column|export/i);
    expect(found!.text).toContain("'1e3' (RXE-10.1)");
    expect(found!.text).toContain('HL7 number (NM)');
    expect(found!.text).toContain('1000');
  });
});

describe('RXE-2 (the dm+d code) with an exponent', () => {
  it('is refused in words for an HL7 file', async () => {
    const text = BASE.map((segment) => {
      if (!segment.startsWith('RXE|')) return segment;
      const parts = segment.split('|');
      parts[2] = `4.21096E+16^${parts[2]!.split('^').slice(1).join('^')}`;
      return parts.join('|');
    }).join('\r');
    const { orders } = await importHl7Message(Buffer.from(text), 'nm.hl7', {
      codeLists: DEFAULT_CODE_LISTS,
      profile: PROFILE,
      today: new Date('2025-06-01T00:00:00Z'),
    });
    const [found] = orders[0]!.order.problems.filter((p) => p.code === 'dmd.excelMangled');
    expect(found).toMatchObject({ file: 'nm.hl7', message: 1, field: 'prescribedItems.0.dmdCode' });
    expect(found!.text).not.toMatch(/spreadsheet|column|export/i);
    expect(found!.text).toContain('ask the sender');
  });
});

describe('an NM zero with no digit before its point', () => {
  it("RXE-12 (repeats) '.0' is 0 repeats, and RXE-10 '.0' is refused as too small, not as a fraction", async () => {
    const text = BASE.map((segment) => {
      if (!segment.startsWith('RXE|')) return segment;
      const parts = segment.split('|');
      parts[10] = '+.0';
      parts[12] = '.0';
      return parts.join('|');
    }).join('\r');
    const { orders } = await importHl7Message(Buffer.from(text), 'nm.hl7', {
      codeLists: DEFAULT_CODE_LISTS,
      profile: PROFILE,
      today: new Date('2025-06-01T00:00:00Z'),
    });
    const order = orders[0]!.order;
    expect(order.body).toMatchObject({ prescription: { repeatsAllowed: 0 } });
    expect(order.problems.map((p) => `${p.code} ${p.field}`)).toEqual(['quantity.range prescribedItems.0.quantity']);
  });
});

describe("RXE-2 (the dm+d code) written as a decimal number ('.0')", () => {
  it('is refused in words for an HL7 file', async () => {
    const text = BASE.map((segment) => {
      if (!segment.startsWith('RXE|')) return segment;
      return segment.replace('42109611000001109^', '42109611000001109.0^');
    }).join('\r');
    const { orders } = await importHl7Message(Buffer.from(text), 'nm.hl7', {
      codeLists: DEFAULT_CODE_LISTS,
      profile: PROFILE,
      today: new Date('2025-06-01T00:00:00Z'),
    });
    const [found] = orders[0]!.order.problems.filter((p) => p.code === 'dmd.excelMangled');
    expect(found).toMatchObject({ file: 'nm.hl7', message: 1, field: 'prescribedItems.0.dmdCode' });
    expect(found!.text).toContain("'.0' after it");
    expect(found!.text).not.toMatch(/spreadsheet|column|export/i);
    expect(found!.text).toContain('ask the sender');
  });
});
