import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile } from './index.js';
import { FIXTURE_DIR } from './testing/write-fixtures.js';

/**
 * A dosage that is a number alone ('30': a quantity in the dosage's column, a sender's RXE fields moved by one as in a
 * public RDE^O11 sample, a numeric sig code) was sent as the patient's instructions. It is an error on the dosage.
 */

let dir: string;
let header: string;
let row: string[];
let at: number;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-dosage-'));
  const lines = (await readFile(join(FIXTURE_DIR, 'template-example.csv'), 'utf8')).split(/\r?\n/);
  header = lines[0]!;
  row = lines[1]!.split(',');
  at = header.split(',').indexOf('dosageInstructions');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function importDosage(dosage: string) {
  const cells = [...row];
  cells[at] = dosage;
  const path = join(dir, 'dosage.csv');
  await writeFile(path, `${header}\n${cells.join(',')}\n`);
  return (await importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: new Date('2025-06-01T00:00:00Z') }))
    .orders[0]!;
}

describe('a dosage that is only a number', () => {
  it.each(['30', '2.5', ' 1 '])('%j is refused on the dosage, saying why', async (dosage) => {
    const order = await importDosage(dosage);
    expect(order.valid).toBe(false);
    expect(order.problems).toMatchObject([
      { severity: 'error', code: 'dosage.numberOnly', field: 'prescribedItems.0.dosageInstructions', row: 2 },
    ]);
    expect(order.problems[0]!.text).toContain('is only a number, which is no instruction for the patient');
  });

  it.each(['1 tablet', '2 x daily', '1-2 tablets every 4 hours'])('%j still passes', async (dosage) => {
    const order = await importDosage(dosage);
    expect(order.problems).toEqual([]);
  });
});
