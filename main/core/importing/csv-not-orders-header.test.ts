import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile } from './index.js';

/**
 * A CSV whose header names three fields Rx Batch knows but nothing of an order (a reference list of countries, as a
 * public CSV library's sample is: Country, CurrencyCode, Phone) was read as that many orders, each with nothing of an
 * order in it; so was a list of patients (Synthea's patients.csv: names, birth dates, addresses). A header must name
 * the clinic order id or an item besides.
 */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-not-orders-header-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const importCsv = async (name: string, text: string) => {
  const path = join(dir, name);
  await writeFile(path, text);
  return importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: new Date('2025-06-01T00:00:00Z') });
};

describe('a header that names known fields but no order', () => {
  it('is no header: the file is refused with csv.noHeader, no orders read', async () => {
    const countries = [
      '# countries, with their currency and dialling code',
      'ISO\tCountry\tCapital\tCurrencyCode\tCurrencyName\tPhone\tPostal Code Format',
      'AD\tAndorra\tAndorra la Vella\tEUR\tEuro\t376\tAD###',
      'GB\tUnited Kingdom\tLondon\tGBP\tPound\t44\t@# #@@|@## #@@',
    ].join('\n');
    const report = await importCsv('countries.tsv', `${countries}\n`);
    expect(report.orders).toEqual([]);
    expect(report.fileProblems).toMatchObject([{ code: 'csv.noHeader', severity: 'error' }]);
    expect(report.fileProblems[0]!.text).toContain('among them the clinic order id or the item');
    // Offered to the admin to map as the header: the first row of the file's common width, past the title line.
    expect(report.candidateHeader).toEqual({
      row: 2,
      cells: ['ISO', 'Country', 'Capital', 'CurrencyCode', 'CurrencyName', 'Phone', 'Postal Code Format'],
    });
  });

  it('offers no row of a file with no header at all: its first row is a patient, not column names', async () => {
    const report = await importCsv(
      'no-header.csv',
      'A-1,Example,1980-01-15,42109611000001109\nA-2,Other,1975-03-02,1\n',
    );
    expect(report.fileProblems.map((p) => p.code)).toEqual(['csv.noHeader']);
    expect(report.candidateHeader).toBeUndefined();
  });

  it('is no header when it names only the patient: a list of patients is no order file', async () => {
    const patients =
      'Id;BIRTHDATE;PREFIX;FIRST;LAST;ADDRESS;CITY;ZIP\nb9c6;1980-01-15;Mr.;Alex;Example;1 High St;Leeds;LS1 4AP\n';
    const report = await importCsv('patients.csv', patients);
    expect(report.orders).toEqual([]);
    expect(report.fileProblems.map((p) => p.code)).toEqual(['csv.noHeader']);
    expect(report.fileProblems[0]!.text).toContain('a list of patients alone is no order file');
    // Still offered to map by hand, as a header.
    expect(report.candidateHeader?.row).toBe(1);
  });

  it('is a header once it names an order id or an item', async () => {
    for (const column of ['Order ID', 'dm+d code', 'Medication']) {
      const report = await importCsv(
        'orders.csv',
        `Surname,Country,CurrencyCode,Phone,${column}\nExample,GBR,GBP,07700900123,X-1\n`,
      );
      expect(report.fileProblems.filter((p) => p.severity === 'error')).toEqual([]);
      expect(report.orders).toHaveLength(1);
      expect(report.orders[0]!.body).toMatchObject({ customer: { surname: 'Example', telephone: '07700900123' } });
    }
  });
});
