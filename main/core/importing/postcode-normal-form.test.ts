import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { importFile } from './index.js';
import { importHl7Message } from './import-message.js';
import { writeRde011 } from './rde-writer.js';
import { writeTemplateCsv } from './template-csv.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * A UK postcode the validator accepts in any case and with or without its space (`ls14ap`) was sent as written. It
 * is the same postcode, so it is sent as Royal Mail writes it (`LS1 4AP`): upper case, one space before the inward
 * code. Only where it is checked as a UK postcode (country GBR, or none); others are kept exactly.
 */

const TODAY = new Date('2025-06-01T00:00:00Z');
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-postcode-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function importCsv(orders: Parameters<typeof writeTemplateCsv>[0]) {
  const path = join(dir, 'postcodes.csv');
  await writeFile(path, writeTemplateCsv(orders));
  return importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: TODAY });
}

describe('a UK postcode in a CSV', () => {
  it('is upper-cased with one space before the inward code, at home, delivery and clinic', async () => {
    const report = await importCsv([
      exampleOrder('P-1', (o) => {
        o.homeAddress.postCode = 'ls14ap';
        o.deliveryAddress.postCode = 'Sw1a1aa';
        o.clinicInformation.postcode = 'yo1 7hh';
      }),
      exampleOrder('P-2', (o) => {
        o.homeAddress.postCode = 'GIR0AA';
        o.deliveryAddress.postCode = 'EC1A 1BB';
      }),
    ]);
    expect(report.orders.map((o) => o.problems)).toEqual([[], []]);
    expect(report.orders[0]!.body).toMatchObject({
      homeAddress: { postCode: 'LS1 4AP' },
      deliveryAddress: { postCode: 'SW1A 1AA' },
      clinicInformation: { postcode: 'YO1 7HH' },
    });
    expect(report.orders[1]!.body).toMatchObject({
      homeAddress: { postCode: 'GIR 0AA' },
      deliveryAddress: { postCode: 'EC1A 1BB' },
    });
  });

  it('is kept exactly when the address is not in the UK, or when it is no UK postcode (and refused)', async () => {
    const report = await importCsv([
      exampleOrder('P-3', (o) => {
        o.deliveryAddress.countryCode = 'IRL';
        o.deliveryAddress.postCode = 'd02 x285';
        o.homeAddress.postCode = 'ls1  4ap';
      }),
    ]);
    const order = report.orders[0]!;
    expect(order.body).toMatchObject({
      homeAddress: { postCode: 'ls1  4ap' },
      deliveryAddress: { postCode: 'd02 x285' },
    });
    expect(order.problems).toMatchObject([
      { code: 'postcode.format', field: 'homeAddress.postCode', file: 'postcodes.csv', row: 2 },
    ]);
  });
});

describe('a UK postcode in HL7', () => {
  it('PID-11.5 is sent in the same form', async () => {
    const profile: MappingProfile = {
      name: 'HL7 clinic',
      columns: {},
      constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
      valueMaps: {},
    };
    const hl7 = writeRde011(
      exampleOrder('P-4', (o) => {
        o.homeAddress.postCode = 'ls14ap';
        o.deliveryAddress.postCode = 'ls14ap';
      }),
      { timestamp: '20250101120000' },
    );
    const { orders } = await importHl7Message(Buffer.from(hl7), 'p.hl7', {
      codeLists: DEFAULT_CODE_LISTS,
      profile,
      today: TODAY,
    });
    expect(orders[0]!.order.problems).toEqual([]);
    expect(orders[0]!.order.body).toMatchObject({ homeAddress: { postCode: 'LS1 4AP' } });
    // The message forwarded as HL7 keeps what the sender wrote.
    expect(orders[0]!.order.source.hl7).toContain('ls14ap');
  });
});
