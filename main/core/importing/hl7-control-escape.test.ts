import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { importHl7Message } from './import-message.js';
import { writeRde011 } from './rde-writer.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * A `\X..\` escape is the one way a control character gets into an HL7 value (a file holding one is refused as
 * binary): NUL, ESC or a C1 control in a dosage or a name holds the order back, naming the field and the escape, where
 * `Two tablets\u0000daily` was sent. Line breaks and tabs written so are text.
 */

const PROFILE: MappingProfile = {
  name: 'HL7 clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};
const BASE = writeRde011(exampleOrder('C-1'), { timestamp: '20250101120000' });

async function withDosage(dosage: string) {
  const text = BASE.replace('^Two tablets up to four times a day', `^${dosage}`);
  expect(text).not.toBe(BASE);
  const { orders } = await importHl7Message(Buffer.from(text), 'escapes.hl7', {
    codeLists: DEFAULT_CODE_LISTS,
    profile: PROFILE,
    today: new Date('2025-06-01T00:00:00Z'),
  });
  return orders[0]!.order;
}

describe('a control character written as an HL7 hex escape', () => {
  it.each([
    ['\\X00\\', '\u0000'],
    ['\\X1B\\', '\u001b'],
    ['\\XC285\\', '\u0085'],
  ])('%s holds the order back, naming the field and the escape', async (escape, character) => {
    const order = await withDosage(`Two tablets${escape}daily`);
    expect(order.valid).toBe(false);
    expect(order.problems).toEqual([
      {
        severity: 'error',
        file: 'escapes.hl7',
        message: 1,
        code: 'hl7.controlCharacter',
        text: `RXE-7.2 (${escape}) writes a control character as a hex escape (NUL, ESC and the like are no text a label or a pharmacy system can show), so the order is held back. Ask the sender to leave it out of the value and send the message again.`,
      },
    ]);
    // The value is kept as written, so the preview shows what came.
    const item = (order.body as { prescribedItems: { dosageInstructions: string }[] }).prescribedItems[0]!;
    expect(item.dosageInstructions).toBe(`Two tablets${character}daily`);
  });

  it.each(['\\X0D0A\\', '\\X0A\\', '\\X09\\', '\\XC3A9\\'])('%s is text: no problem', async (escape) => {
    const order = await withDosage(`Two tablets${escape}daily`);
    expect(order.problems).toEqual([]);
    expect(order.valid).toBe(true);
  });
});
