import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile } from './index.js';
import { writeTemplateCsv } from './template-csv.js';
import { exampleOrder } from './testing/write-fixtures.js';
import { convertValue } from './value-conversion.js';

/**
 * A spreadsheet in a comma-decimal locale saves a semicolon file and writes a quantity column formatted with
 * decimals as `32,00`: the whole number 32, as `32.00` is in a comma file (already read so). It was refused as
 * "has a comma". A comma with decimals that are not zeros (`32,50`) is a fraction: refused as not whole.
 */

const TODAY = new Date('2025-06-01T00:00:00Z');

describe('a whole number with a decimal comma, in a semicolon file', () => {
  it.each([
    ['32,00', 32],
    ['32,0', 32],
    ['+0,00', 0],
  ])('%s is %d', (text, value) => {
    expect(convertValue(text, 'int', undefined, TODAY, { decimalComma: true })).toEqual({ ok: true, value });
  });

  it('32,50 is not a whole number; outside a semicolon file a comma is refused as before', () => {
    expect(convertValue('32,50', 'int', undefined, TODAY, { decimalComma: true })).toEqual({
      ok: false,
      code: 'value.notWholeNumber',
      reason: 'is not a whole number',
    });
    expect(convertValue('32,00', 'int', undefined, TODAY)).toMatchObject({ ok: false, code: 'value.comma' });
    expect(convertValue('1,000', 'int', undefined, TODAY, { decimalComma: true })).toMatchObject({
      ok: false,
      code: 'value.comma',
    });
  });

  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rx-decimal-comma-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is read from the file, and a fraction is said at its row', async () => {
    const csv = writeTemplateCsv([exampleOrder('S-1'), exampleOrder('S-2')]);
    const [header, first, second] = csv.trimEnd().split('\r\n') as [string, string, string];
    const column = header.split(',').indexOf('quantity');
    const withQuantity = (line: string, quantity: string) =>
      line
        .split(',')
        .map((cell, i) => (i === column ? quantity : cell))
        .join(';');
    const path = join(dir, 'semicolon.csv');
    await writeFile(
      path,
      [header.replaceAll(',', ';'), withQuantity(first, '32,00'), withQuantity(second, '32,50')].join('\r\n'),
    );
    const report = await importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: TODAY });
    expect(report.delimiter).toBe(';');
    expect(report.orders[0]!.body).toMatchObject({ prescribedItems: [{ quantity: 32 }] });
    expect(report.orders[0]!.problems).toEqual([]);
    expect(report.orders[1]!.problems).toMatchObject([
      { code: 'value.notWholeNumber', file: 'semicolon.csv', row: 3, field: 'prescribedItems.0.quantity' },
    ]);
  });
});
