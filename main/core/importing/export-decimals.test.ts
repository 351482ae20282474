import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile } from './index.js';
import { FIXTURE_DIR } from './testing/write-fixtures.js';

/**
 * A database or pandas export writes a column of numbers with '.0' (`7700900123.0`, `42109611000001109.0`): the
 * phone lost its 0 and the code may have lost digits. Both were refused without saying so ('not a UK phone
 * number', 'digits only'); each now says what the export did and what to write.
 */

let dir: string;
let header: string;
let row: string[];
let cells: string[];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-decimals-'));
  const lines = (await readFile(join(FIXTURE_DIR, 'template-example.csv'), 'utf8')).split(/\r?\n/);
  header = lines[0]!;
  cells = header.split(',');
  row = lines[1]!.split(',');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function importWith(column: string, value: string) {
  const values = [...row];
  values[cells.indexOf(column)] = value;
  const path = join(dir, 'decimals.csv');
  await writeFile(path, `${header}\n${values.join(',')}\n`);
  return (await importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: new Date('2025-06-01T00:00:00Z') }))
    .orders[0]!;
}

describe('numbers an export wrote with a decimal point', () => {
  it.each([
    ['7700900123.0', 'if it is 07700900123, write that; export the column as text'],
    ['447700900123.0', 'if it is +447700900123, write that; export the column as text'],
  ])('telephone %s says the export dropped its 0 or +', async (phone, said) => {
    const order = await importWith('telephone', phone);
    expect(order.problems).toMatchObject([
      { severity: 'error', code: 'telephone.format', field: 'customer.telephone' },
    ]);
    expect(order.problems[0]!.text).toContain("was written as a decimal number ('.0' after it)");
    expect(order.problems[0]!.text).toContain(said);
  });

  it('a dm+d code with .0 says the export may have rounded it', async () => {
    const order = await importWith('dmdCode', '42109611000001109.0');
    expect(order.problems).toMatchObject([
      { severity: 'error', code: 'dmd.excelMangled', field: 'prescribedItems.0.dmdCode' },
    ]);
    expect(order.problems[0]!.text).toContain('may have rounded its last digits');
  });

  it('a phone written with dots between its groups still reads', async () => {
    const order = await importWith('telephone', '0113.496.0000');
    expect(order.problems).toEqual([]);
  });
});
