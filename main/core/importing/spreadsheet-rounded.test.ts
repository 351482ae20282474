import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile } from './index.js';
import { FIXTURE_DIR } from './testing/write-fixtures.js';

/**
 * A spreadsheet shows a long number it has rounded as `1.23457E+11`, and saves it so. A clinic order id so rounded
 * was sent as that text (and other orders' ids round to it too, joining their rows into one order); an account
 * number or product id was 'not a number'. Each now says the spreadsheet rounded it, as dm+d codes and phones did.
 */

let dir: string;
let lines: string[];
let cells: string[];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-rounded-'));
  lines = (await readFile(join(FIXTURE_DIR, 'template-example.csv'), 'utf8')).split(/\r?\n/).filter((l) => l !== '');
  cells = lines[0]!.split(',');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function importWith(values: Record<string, string>) {
  const rows = lines.slice(1).map((line) => {
    const row = line.split(',');
    for (const [column, value] of Object.entries(values)) row[cells.indexOf(column)] = value;
    return row.join(',');
  });
  const path = join(dir, 'rounded.csv');
  await writeFile(path, [lines[0], ...rows].join('\n') + '\n');
  return importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: new Date('2025-06-01T00:00:00Z') });
}

describe('numbers a spreadsheet rounded', () => {
  it('a rounded clinic order id blocks every order read under it, saying rows may have been joined', async () => {
    const report = await importWith({ clinicOrderId: '1.23457E+11' });
    expect(report.orders.map((o) => o.valid)).toEqual([false, false]);
    for (const order of report.orders) {
      const found = order.problems.filter((p) => p.code === 'orderId.excelMangled');
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ severity: 'error', field: 'prescription.clinicOrderId' });
      expect(found[0]!.text).toContain(
        "Clinic order id '1.23457E+11' looks like a spreadsheet turned the order id into a rounded number",
      );
    }
  });

  it('a rounded account number or product id is said to be rounded, not just no number', async () => {
    const report = await importWith({ clinicAccountNumber: '4.52E+05', productId: '1.2e+07' });
    const codes = report.orders.flatMap((o) => o.problems.map((p) => `${p.code}:${p.field}`));
    expect(new Set(codes)).toEqual(
      new Set([
        'value.excelMangled:customer.clinicAccountNumber',
        'value.excelMangled:prescribedItems.0.productId',
        'value.excelMangled:prescribedItems.1.productId',
      ]),
    );
    expect(report.orders[0]!.problems[0]!.text).toContain(
      'looks like a spreadsheet turned the number into a rounded one, losing digits; format the column as text and export again',
    );
  });

  it('ids and numbers written out in full still read', async () => {
    const report = await importWith({ clinicAccountNumber: '452000' });
    expect(report.orders.every((o) => o.valid)).toBe(true);
    const ids = await importWith({ clinicOrderId: '123456789012' });
    expect(ids.orders.flatMap((o) => o.problems.map((p) => p.code))).not.toContain('orderId.excelMangled');
  });
});
