import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile } from './index.js';

/**
 * Prescribing exports that write a dosage in parts (`Dose`, `Frequency`, `Route`, `Duration`, as EHR medication
 * lists do): only one column is read as the dosage instructions, so an item with the rest filled is held back, naming
 * what was read and what was left, where `1 tablet` was sent as the whole instruction.
 */

const TODAY = new Date('2025-06-01T00:00:00Z');
const ORDER =
  'Clinic Code,Order Number,Title,First Name,Last Name,DOB,Sex,Address,City,Postcode,Country,GMC,Prescriber,Clinic,Clinic Address,Clinic Postcode,Clinic Country,Payment Type,Courier,Currency';
const ORDER_ROW =
  'CLINIC-A,ORD-1,Ms,Alex,Example,1980-01-15,F,1 High Street,Leeds,LS1 4AP,GBR,7123456,Dr Jane Smith,Example Clinic,10 Market Street,YO1 7HH,GBR,Account,RMT24,GBP';
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-dosage-parts-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function importItems(name: string, itemHeader: string, items: string[]) {
  const path = join(dir, name);
  await writeFile(path, [`${ORDER},${itemHeader}`, ...items.map((item) => `${ORDER_ROW},${item}`), ''].join('\n'));
  return importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: TODAY });
}

describe('a dosage written in several columns', () => {
  it('holds back each item whose frequency, route or duration is not read, naming them', async () => {
    const report = await importItems('parts.csv', 'DMD,Medication Name,Dosage,Frequency,Route,Duration,Qty', [
      '42109611000001109,Paracetamol 500mg tablets,1 tablet,four times a day,oral,5 days,32',
      '322236009,Paracetamol 500mg capsules,2 capsules,,,,16',
    ]);
    expect(report.profile).toBe('suggested');
    const order = report.orders[0]!;
    expect(order.valid).toBe(false);
    expect(order.problems).toEqual([
      {
        severity: 'error',
        file: 'parts.csv',
        row: 2,
        field: 'prescribedItems.0.dosageInstructions',
        code: 'csv.dosagePartUnread',
        text: `Row 2: item 1 dosage instructions are read from column "Dosage" alone ('1 tablet'), and the columns "Frequency" ('four times a day'), "Route" ('oral') and "Duration" ('5 days') hold more of the dosage that nothing reads, so it would be sent without them. Write the whole instruction in the preview, or join the columns into one dosage column in the file.`,
      },
    ]);
    // The medication name is suggested too, and the second item, with nothing more, is read as it is.
    const items = (order.body as { prescribedItems: { medication: string; dosageInstructions: string }[] })
      .prescribedItems;
    expect(items.map((item) => [item.medication, item.dosageInstructions])).toEqual([
      ['Paracetamol 500mg tablets', '1 tablet'],
      ['Paracetamol 500mg capsules', '2 capsules'],
    ]);
  });

  it('names a second instructions column the mapping did not read', async () => {
    const report = await importItems('two-columns.csv', 'DMD,Drug,Dose,Instructions,Qty', [
      '42109611000001109,Paracetamol 500mg tablets,Two tablets four times a day,Take with food,32',
    ]);
    const problems = report.orders[0]!.problems.filter((p) => p.code === 'csv.dosagePartUnread');
    expect(problems.map((p) => p.text)).toEqual([
      `Row 2: item 1 dosage instructions are read from column "Dose" alone ('Two tablets four times a day'), and the column "Instructions" ('Take with food') holds more of the dosage that nothing reads, so it would be sent without it. Write the whole instruction in the preview, or join the columns into one dosage column in the file.`,
    ]);
  });

  it('says nothing where the dosage is one column', async () => {
    const report = await importItems('one-column.csv', 'DMD,Drug,Directions,Qty,Notes', [
      '42109611000001109,Paracetamol 500mg tablets,Two tablets four times a day,32,repeat',
    ]);
    expect(report.orders[0]!.problems).toEqual([]);
  });
});
