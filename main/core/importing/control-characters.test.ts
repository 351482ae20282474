import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { importFile, validateOrder } from './index.js';
import { importHl7Message } from './import-message.js';
import { writeRde011 } from './rde-writer.js';
import { FIXTURE_DIR, exampleOrder } from './testing/write-fixtures.js';

/**
 * A control character (NUL, BEL, ESC, a C1 control) is no text a label can show: in a CSV cell (a stray byte the
 * binary check lets through, which allows a few) or an HL7 `\X..\` escape, it holds the order back with an error on
 * its field, where `Two tablets\u0000daily` was sent. Tabs and line breaks are text.
 */

const TODAY = new Date('2025-06-01T00:00:00Z');
const PROFILE: MappingProfile = {
  name: 'HL7 clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};
const BASE = writeRde011(exampleOrder('C-1'), { timestamp: '20250101120000' });
const text = (shown: string, codes: string, from: string) =>
  `Item 1 dosage instructions '${shown}' holds a control character (${codes}), which is no text a label or a pharmacy system can show (a stray byte in the file, or an HL7 hex escape such as \\X00\\): remove it in the preview, or ask the sender for the value without it (${from}).`;

async function hl7Dosage(dosage: string) {
  const message = BASE.replace('^Two tablets up to four times a day', `^${dosage}`);
  expect(message).not.toBe(BASE);
  const { orders } = await importHl7Message(Buffer.from(message), 'escapes.hl7', {
    codeLists: DEFAULT_CODE_LISTS,
    profile: PROFILE,
    today: TODAY,
  });
  return orders[0]!.order;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-control-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a control character in a value', () => {
  it.each([
    ['\\X00\\', '\u0000', 'U+0000'],
    ['\\X1B\\', '\u001b', 'U+001B'],
    ['\\XC285\\', '\u0085', 'U+0085'],
  ])('written as the HL7 escape %s holds the order back, naming the field', async (escape, character, code) => {
    const order = await hl7Dosage(`Two tablets${escape}daily`);
    expect(order.valid).toBe(false);
    expect(order.problems).toEqual([
      {
        severity: 'error',
        file: 'escapes.hl7',
        message: 1,
        field: 'prescribedItems.0.dosageInstructions',
        code: 'text.controlCharacter',
        text: text(`Two tablets${character}daily`, code, 'RXE-7.2'),
      },
    ]);
    // Kept as written, so the preview shows what came.
    const item = (order.body as { prescribedItems: { dosageInstructions: string }[] }).prescribedItems[0]!;
    expect(item.dosageInstructions).toBe(`Two tablets${character}daily`);
  });

  it.each(['\\X0D0A\\', '\\X0A\\', '\\X09\\', '\\XC3A9\\'])('written as %s is text: no problem', async (escape) => {
    const order = await hl7Dosage(`Two tablets${escape}daily`);
    expect(order.problems).toEqual([]);
  });

  it('in a CSV cell holds its order back, naming the row and column, and an edit in the preview clears it', async () => {
    const [header, row, ...rest] = (await readFile(join(FIXTURE_DIR, 'template-example.csv'), 'utf8')).split(/\r?\n/);
    const path = join(dir, 'bell.csv');
    await writeFile(path, [header, row!.replace('Two tablets up', 'Two tablets\u0007 up'), ...rest].join('\r\n'));
    const report = await importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: TODAY });
    const order = report.orders[0]!;
    expect(order.valid).toBe(false);
    expect(order.problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        row: 2,
        field: 'prescribedItems.0.dosageInstructions',
        code: 'text.controlCharacter',
        text: text('Two tablets\u0007 up to four times a day', 'U+0007', 'column "dosageInstructions"'),
      }),
    ]);
    expect(report.orders.slice(1).every((o) => o.valid)).toBe(true);
    const body = structuredClone(order.body) as { prescribedItems: { dosageInstructions: string }[] };
    body.prescribedItems[0]!.dosageInstructions = 'Two tablets up to four times a day';
    expect(validateOrder(body, { codeLists: DEFAULT_CODE_LISTS, today: TODAY })).toEqual([]);
  });
});
