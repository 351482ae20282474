import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { importHl7Message } from './import-message.js';
import { writeRde011 } from './rde-writer.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * HL7's formatting commands and hex escapes (`\.br\`, `\.sp\`, `\X0D0A\`) are read as line breaks, which suit a
 * dosage (FT text) but not a name, an address line or an order id: such a value was sent with the line break and
 * nothing said, where the same value in a CSV cell gets a warning. It now gets one, naming the message and field.
 */

const PROFILE: MappingProfile = {
  name: 'HL7 clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};

const BASE = writeRde011(exampleOrder('B-1'), { timestamp: '20250101120000' });

async function importText(text: string) {
  const { orders } = await importHl7Message(Buffer.from(text), 'breaks.hl7', {
    codeLists: DEFAULT_CODE_LISTS,
    profile: PROFILE,
    today: new Date('2025-06-01T00:00:00Z'),
  });
  return orders[0]!.order;
}

describe('a line break written into a one-line HL7 value', () => {
  it.each([
    ['PID-5.1', 'Example^Alex', 'Exa\\.br\\mple^Alex', 'customer.surname'],
    ['PID-11.1', '1 High Street^Flat 2', '1 High Street\\X0D0A\\Flat 2^', 'homeAddress.address1'],
    ['ORC-2.1', 'ORC|NW|B-1|', 'ORC|NW|B\\.sp\\1|', 'prescription.clinicOrderId'],
  ])('%s is sent as written with a warning naming the message and field', async (label, from, to, field) => {
    const order = await importText(BASE.replace(from, to));
    const found = order.problems.filter((p) => p.code === 'hl7.lineBreakInValue');
    expect(found).toMatchObject([{ severity: 'warning', file: 'breaks.hl7', message: 1, field }]);
    expect(found[0]!.text).toContain(label);
    expect(found[0]!.text).toContain('↵');
    expect(order.valid).toBe(true);
  });

  it('a dosage over lines (RXE-7) is what FT text is for: nothing said', async () => {
    const order = await importText(BASE.replace('^Two tablets up to', '^Two tablets\\.br\\up to'));
    expect(order.problems).toEqual([]);
    expect(order.body).toMatchObject({
      prescribedItems: [{ dosageInstructions: 'Two tablets\nup to four times a day' }],
    });
  });
});
