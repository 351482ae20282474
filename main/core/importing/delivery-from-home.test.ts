import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile, validateOrder } from './index.js';
import { FIXTURE_DIR } from './testing/write-fixtures.js';

/**
 * With no delivery address the order goes to the home one: a home problem is said once, on the home field, saying
 * it is the delivery address too, where it came back on the copied delivery field, about a column the file lacks.
 */

const TODAY = new Date('2025-06-01T00:00:00Z');
let dir: string;
let lines: string[];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-delivery-home-'));
  lines = (await readFile(join(FIXTURE_DIR, 'template-example.csv'), 'utf8')).trim().split(/\r?\n/).slice(0, 2);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The template's first row with the delivery columns (16–21, 0-based) left out, home postcode and city given. */
async function withoutDelivery(postcode: string, city: string): Promise<string> {
  const [header, row] = lines.map((line) => line.split(',')) as [string[], string[]];
  row[14] = postcode;
  row[12] = city;
  const cut = (cells: string[]) => [...cells.slice(0, 16), ...cells.slice(22)].join(',');
  const path = join(dir, `home-${postcode || 'none'}-${city || 'none'}.csv`);
  await writeFile(path, `${cut(header)}\n${cut(row)}\n`);
  return path;
}

describe('a delivery address copied from the home address', () => {
  it('says a bad home postcode once, at the home column, and that it is the delivery address too', async () => {
    const report = await importFile(await withoutDelivery('LS1 ZZZ', 'Leeds'), {
      codeLists: DEFAULT_CODE_LISTS,
      today: TODAY,
    });
    const postcodes = report.orders[0]!.problems.filter((p) => p.code === 'postcode.format');
    expect(postcodes).toEqual([expect.objectContaining({ field: 'homeAddress.postCode', row: 2, severity: 'error' })]);
    expect(postcodes[0]!.text).toBe(
      `Home postcode 'LS1 ZZZ' is not a UK postcode (e.g. LS1 1AA) (column "homePostCode"). The order is delivered to the home address (no delivery address is given), so this is the delivery address too.`,
    );
  });

  it('says a missing home city once too', async () => {
    const report = await importFile(await withoutDelivery('LS1 4AP', ''), {
      codeLists: DEFAULT_CODE_LISTS,
      today: TODAY,
    });
    const required = report.orders[0]!.problems.filter((p) => p.code === 'field.required');
    expect(required.map((p) => p.field)).toEqual(['homeAddress.city']);
    expect(report.orders[0]!.valid).toBe(false);
  });

  it('still says both when the delivery address is given and bad in its own cell', async () => {
    const [header, row] = lines.map((line) => line.split(',')) as [string[], string[]];
    row[14] = 'LS1 ZZZ';
    row[20] = 'LS1 ZZZ';
    const path = join(dir, 'both.csv');
    await writeFile(path, `${header.join(',')}\n${row.join(',')}\n`);
    const report = await importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: TODAY });
    const postcodes = report.orders[0]!.problems.filter((p) => p.code === 'postcode.format');
    expect(postcodes.map((p) => [p.field, p.text.includes('delivery address too')])).toEqual([
      ['homeAddress.postCode', false],
      ['deliveryAddress.postCode', false],
    ]);
  });

  it('says the delivery problem again once the home postcode is fixed in the preview and the copy is not', async () => {
    const report = await importFile(await withoutDelivery('LS1 ZZZ', 'Leeds'), {
      codeLists: DEFAULT_CODE_LISTS,
      today: TODAY,
    });
    const order = report.orders[0]!;
    const body = structuredClone(order.body) as { homeAddress: { postCode: string } };
    body.homeAddress.postCode = 'LS1 4AP';
    const problems = validateOrder(body, { codeLists: DEFAULT_CODE_LISTS, today: TODAY, provenance: order.provenance });
    expect(problems.map((p) => [p.code, p.field])).toEqual([['postcode.format', 'deliveryAddress.postCode']]);
  });
});
