import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import {
  TEMPLATE_PROFILE,
  headerFingerprint,
  importFile,
  type ImportOptions,
  type ImportReport,
  type ImportedOrder,
  type MappingProfile,
} from './index.js';
import { FIXTURE_DIR, fixtureFiles, templateExampleOrders } from './testing/write-fixtures.js';

/**
 * Every file of the fixture corpus (test/fixtures/import/, written by testing/write-fixtures.ts) with the outcome an
 * admin relies on: what was detected, how many orders, and exactly which problems at which row or message.
 */

const TODAY = new Date('2025-06-01T00:00:00Z');
const HL7_PROFILE: MappingProfile = {
  name: 'HL7 clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};
const OTHER_LAYOUT_PROFILE: MappingProfile = {
  name: 'Other clinic system',
  columns: {
    clinicOrderId: 'Order No',
    clinicCode: 'Clinic',
    title: 'Title',
    firstName: 'Forename',
    surname: 'Patient Surname',
    dateOfBirth: 'DOB',
    gender: 'Sex',
    telephone: 'Mobile',
    email: 'Email',
    homeAddress1: 'Address 1',
    homeCity: 'Town',
    homePostCode: 'Post Code',
    courierCode: 'Delivery Method',
    medication: 'Drug',
    dmdCode: 'DMD',
    dosageInstructions: 'Directions',
    quantity: 'Qty',
    prescriberRegistrationNumber: 'GMC',
    prescriberName: 'Prescriber',
  },
  constants: {
    homeCountryCode: 'GBR',
    paymentType: 'Invoice',
    currencyCode: 'GBP',
    clinicName: 'Other Clinic',
    clinicAddress1: '1 Clinic Way',
    clinicPostcode: 'HU1 2AA',
    clinicCountryCode: 'GBR',
  },
  valueMaps: {
    gender: { M: 'Male', F: 'Female' },
    courierCode: { 'Royal Mail 24': 'RMT24', 'Royal Mail 48': 'RMT48' },
  },
  dateFormat: 'dd/MM/yyyy',
};

interface Case {
  file: string;
  name?: string;
  options?: Partial<ImportOptions>;
  format: 'csv' | 'hl7';
  encoding?: string;
  delimiter?: string;
  headerRow?: number;
  orders: number;
  invalid: number;
  fileProblems?: string[];
  /** Every order problem as `code@row-or-message:field`, in any order; 'see check' leaves them to `check`. */
  problems?: string[] | 'see check';
  check?: (report: ImportReport) => void;
}

const body = (order: ImportedOrder | undefined) => order?.body as Record<string, Record<string, unknown>>;
const item = (order: ImportedOrder | undefined, i: number) =>
  (body(order).prescribedItems as unknown as Record<string, unknown>[])[i];
const orderById = (report: ImportReport, id: string) => report.orders.find((o) => o.clinicOrderId === id);
const strip = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

const CASES: Case[] = [
  // Encodings
  {
    file: 'template-example.csv',
    format: 'csv',
    encoding: 'utf-8',
    delimiter: ',',
    headerRow: 1,
    orders: 3,
    invalid: 0,
    check: (r) => {
      expect(r.profile).toBe('template');
      expect(r.orders.map((o) => strip(o.body))).toEqual(templateExampleOrders().map(strip));
      const first = orderById(r, 'ORD-1001')!;
      expect(first.source.rows).toEqual([2, 3]);
      expect(first.provenance['prescribedItems.1.dmdCode']).toEqual({
        kind: 'csv',
        file: 'template-example.csv',
        row: 3,
        column: 'dmdCode',
      });
      expect(first.provenance['customer.surname']).toEqual({
        kind: 'csv',
        file: 'template-example.csv',
        row: 2,
        column: 'surname',
      });
      expect(item(first, 1)!.dmdCode).toBe('123456781000001105');
    },
  },
  {
    file: 'template-example.csv',
    name: 'template-example.csv against earlier batches',
    options: { isKnownOrder: (clinic, id) => clinic === 'CLINIC-A' && id === 'ORD-1002' },
    format: 'csv',
    orders: 3,
    invalid: 1,
    problems: ['order.alreadyKnown@4:prescription.clinicOrderId'],
  },
  {
    file: 'utf8-bom.csv',
    format: 'csv',
    encoding: 'utf-8',
    headerRow: 1,
    orders: 3,
    invalid: 0,
    check: (r) => expect(r.header?.cells[0]).toBe('clinicCode'),
  },
  ...['utf16le-bom.csv', 'utf16be-bom.csv', 'utf16le-no-bom.csv', 'windows-1252.csv'].map((file): Case => ({
    file,
    format: 'csv',
    encoding: file.startsWith('utf16le') ? 'utf-16le' : file.startsWith('utf16be') ? 'utf-16be' : 'windows-1252',
    delimiter: ',',
    orders: 1,
    invalid: 0,
    check: (r) => {
      expect(r.encodingDetected).toBe(true);
      const order = r.orders[0];
      expect(body(order).customer!.firstName).toBe('Zoë');
      expect(body(order).customer!.surname).toBe('Brontë-Fenwick');
      expect(body(order).homeAddress!.address1).toBe('St Mary’s Road');
      expect(item(order, 0)!.dosageInstructions).toBe('“Two” tablets; cost £4.50 (café dose)');
    },
  })),
  {
    file: 'late-windows-1252.csv',
    format: 'csv',
    encoding: 'windows-1252',
    orders: 221,
    invalid: 0,
    check: (r) => expect(body(orderById(r, 'ORD-LATE')).customer!.firstName).toBe('Renée'),
  },
  // Delimiters and layout
  ...[
    ['semicolon.csv', ';'],
    ['tab.tsv', '\t'],
    ['pipe.txt', '|'],
  ].map(([file, delimiter]): Case => ({
    file: file!,
    format: 'csv',
    delimiter,
    headerRow: 1,
    orders: 3,
    invalid: 0,
    check: (r) => expect(r.orders.map((o) => strip(o.body))).toEqual(templateExampleOrders().map(strip)),
  })),
  {
    file: 'decimal-comma.csv',
    format: 'csv',
    delimiter: ';',
    orders: 3,
    invalid: 2,
    problems: ['value.comma@2:clinicInformation.prescriberFee', 'value.comma@5:prescription.clinicOrderValue'],
    check: (r) => {
      expect(body(orderById(r, 'ORD-1002')).prescription!.clinicOrderValue).toBe(24.5);
      const [fee, value] = r.orders.flatMap((o) => o.problems);
      expect(fee!.text).toBe(
        'Prescriber fee \'1,250\' (column "clinicPrescriberFee") has a comma, which may separate thousands (1250) or decimals (1.250): write it with a full stop for decimals and no thousands separator.',
      );
      expect(value!.text).toBe(
        'Order value \'1.234,56\' (column "clinicOrderValue") has full stops between thousands and a decimal comma: write 1234.56.',
      );
    },
  },
  {
    file: 'decimal-comma-quoted.csv',
    format: 'csv',
    delimiter: ',',
    orders: 1,
    invalid: 1,
    problems: ['value.comma@2:prescription.clinicOrderValue', 'value.comma@2:prescribedItems.0.quantity'],
    check: (r) => {
      const [value, quantity] = r.orders[0]!.problems;
      expect(value!.text).toBe(
        'Order value \'24,50\' (column "clinicOrderValue") has a decimal comma: write 24.50, with a full stop.',
      );
      expect(quantity!.text).toBe(
        'Item 1 quantity \'1,000\' (column "quantity") has a comma: write a whole number as digits only (1000), with no thousands separator.',
      );
    },
  },
  {
    file: 'title-rows.csv',
    format: 'csv',
    delimiter: ',',
    headerRow: 4,
    orders: 3,
    invalid: 0,
    check: (r) => expect(r.orders.map((o) => o.source.rows)).toEqual([[5, 6], [7], [8]]),
  },
  {
    file: 'quoted-fields.csv',
    format: 'csv',
    headerRow: 1,
    orders: 3,
    invalid: 0,
    // The dosage's quoted line break is kept, and said (csv.lineBreakInCell).
    problems: ['csv.lineBreakInCell@2:prescribedItems.0.dosageInstructions'],
    check: (r) => {
      const first = orderById(r, 'ORD-1001')!;
      expect(item(first, 0)!.dosageInstructions).toBe('Two tablets, with water,\r\nup to "four" times a day');
      expect(item(first, 1)!.medication).toBe('Paracetamol 500mg "caplets"');
      // The first record spans lines 2 and 3, so the next ones start on lines 4, 5 and 6.
      expect(r.orders.map((o) => o.source.rows)).toEqual([[2, 4], [5], [6]]);
      expect(first.provenance['prescribedItems.1.medication']).toMatchObject({ row: 4 });
    },
  },
  {
    file: 'blank-lines.csv',
    format: 'csv',
    orders: 3,
    invalid: 0,
    check: (r) => {
      expect(r.rowsRead).toBe(4);
      expect(r.orders.map((o) => o.source.rows)).toEqual([[3, 6], [7], [8]]);
    },
  },
  {
    file: 'mixed-line-endings.csv',
    format: 'csv',
    orders: 3,
    invalid: 0,
    check: (r) => expect(r.orders.map((o) => o.source.rows)).toEqual([[2, 3], [4], [5]]),
  },
  {
    file: 'non-contiguous.csv',
    format: 'csv',
    orders: 2,
    invalid: 0,
    check: (r) => {
      const split = orderById(r, 'ORD-4001')!;
      expect(split.source.rows).toEqual([2, 4]);
      expect((body(split).prescribedItems as unknown as unknown[]).length).toBe(2);
      expect(split.provenance['prescribedItems.1.dmdCode']).toMatchObject({ row: 4 });
    },
  },
  {
    file: 'rows-disagree.csv',
    format: 'csv',
    orders: 1,
    invalid: 1,
    problems: ['order.rowsDisagree@3:customer.surname'],
    check: (r) => {
      const text = r.orders[0]!.problems[0]!.text;
      expect(text).toContain('Rows 2 and 3');
      expect(text).toContain("'Example' on row 2");
      expect(text).toContain("'Exampel' on row 3");
    },
  },
  {
    file: 'ragged-rows.csv',
    format: 'csv',
    orders: 1,
    // More cells than the header: they may have moved (an unquoted delimiter), so none is read and the order waits.
    invalid: 1,
    problems: ['csv.extraCells@2:'],
    check: (r) => expect(r.orders[0]!.problems[0]!.text).toContain("beyond its last column: 'surplus' and 'cells'"),
  },
  {
    file: 'malformed-quotes.csv',
    format: 'csv',
    orders: 3,
    invalid: 1,
    problems: ['csv.quotes@2:'],
    check: (r) => {
      const blocked = orderById(r, 'ORD-1001')!;
      expect(blocked.source.rows).toEqual([2, 3]);
      expect(blocked.source.records?.[0]).toContain('"Exa"mple');
    },
  },
  {
    file: 'other-layout.csv',
    name: 'other-layout.csv with its profile',
    options: { profile: OTHER_LAYOUT_PROFILE },
    format: 'csv',
    orders: 2,
    invalid: 0,
    check: (r) => {
      expect(r.profile).toBe('Other clinic system');
      const ann = orderById(r, 'A-1')!;
      expect(body(ann).customer).toMatchObject({
        dateOfBirth: '1961-12-25',
        gender: 'Female',
        telephone: '07700 900111',
      });
      expect(body(ann).prescription).toMatchObject({ courierCode: 'RMT24', paymentType: 'Invoice' });
      expect(body(ann).deliveryAddress).toEqual(body(ann).homeAddress);
      expect(ann.provenance['prescription.paymentType']).toEqual({
        kind: 'constant',
        profile: 'Other clinic system',
        column: 'paymentType',
      });
      expect(ann.provenance['customer.dateOfBirth']).toEqual({
        kind: 'csv',
        file: 'other-layout.csv',
        row: 2,
        column: 'DOB',
      });
      expect(body(orderById(r, 'A-2')).customer!.dateOfBirth).toBe('1980-04-03');
    },
  },
  {
    file: 'other-layout.csv',
    name: 'other-layout.csv chosen by its saved fingerprint',
    options: {
      profiles: [
        { ...OTHER_LAYOUT_PROFILE, name: 'another layout', headerFingerprint: headerFingerprint(['a', 'b', 'c']) },
        {
          ...OTHER_LAYOUT_PROFILE,
          name: 'saved',
          // Saved from the same export with its columns in another order and spelled in other case.
          headerFingerprint: headerFingerprint(
            readFileSync(join(FIXTURE_DIR, 'other-layout.csv'), 'utf8')
              .split('\r\n')[0]!
              .toUpperCase()
              .split(',')
              .reverse(),
          ),
        },
      ],
    },
    format: 'csv',
    orders: 2,
    invalid: 0,
    check: (r) => expect(r.profile).toBe('saved'),
  },
  {
    file: 'other-layout.csv',
    name: 'other-layout.csv with suggested mapping and no date format',
    format: 'csv',
    orders: 2,
    invalid: 2,
    problems: 'see check',
    check: (r) => {
      expect(r.profile).toBe('suggested');
      expect(r.appliedProfile?.columns).toMatchObject({
        surname: 'Patient Surname',
        dateOfBirth: 'DOB',
        homePostCode: 'Post Code',
        gender: 'Sex',
      });
      const codes = r.orders.flatMap((o) => o.problems.map((p) => `${p.code}@${p.row}`));
      // 25/12/1961 can only be one date; 03/04/1980 could be two, so it is an error, never a guess.
      expect(codes).toContain('date.ambiguous@3');
      expect(codes).not.toContain('date.ambiguous@2');
      expect(body(orderById(r, 'A-1')).customer!.dateOfBirth).toBe('1961-12-25');
    },
  },
  {
    file: 'header-notes.csv',
    format: 'csv',
    orders: 2,
    invalid: 2,
    problems: 'see check',
    check: (r) => {
      expect(r.profile).toBe('suggested');
      expect(r.appliedProfile?.columns).toMatchObject({
        dateOfBirth: 'DOB (dd/mm/yyyy)',
        telephone: 'Mobile [e.g. 07700 900123]',
        dmdCode: 'DMD (SNOMED CT)',
        quantity: 'Qty (tablets)',
      });
      // "(delivery)" says which postcode it is: never read as the home one.
      expect(r.appliedProfile?.columns.homePostCode).toBeUndefined();
      // The header states the date format, so 03/04/1980 is 3 April.
      expect(r.appliedProfile?.dateFormat).toBe('dd/MM/yyyy');
      expect(body(orderById(r, 'A-2')).customer!.dateOfBirth).toBe('1980-04-03');
      expect(item(orderById(r, 'A-1'), 0)!.quantity).toBe(32);
      const codes = r.orders.flatMap((o) => o.problems.map((p) => `${p.code}:${p.field}`));
      expect(codes).not.toContain('field.required:customer.dateOfBirth');
      expect(codes).not.toContain('field.required:prescribedItems.0.quantity');
      expect(codes).toContain('field.required:homeAddress.postCode');
    },
  },
  {
    file: 'leading-zeros.csv',
    format: 'csv',
    orders: 1,
    invalid: 0,
    check: (r) => {
      const order = r.orders[0]!;
      expect(order.clinicCode).toBe('007');
      expect(order.clinicOrderId).toBe('000123');
      expect(body(order).customer).toMatchObject({ telephone: '01632 960000', clinicAccountNumber: 1234 });
      expect(body(order).clinicInformation!.contactNumber).toBe('+44 (0)20 7946 0000');
      expect((body(order) as Record<string, unknown>).affiliateId).toBe('00042');
      expect(item(order, 0)!.dmdCode).toBe('123456781000001105');
    },
  },
  {
    file: 'formula-cells.csv',
    format: 'csv',
    orders: 1,
    invalid: 0,
    check: (r) => {
      const order = r.orders[0]!;
      // One apostrophe before a formula character is taken off; any other cell reads as it is.
      expect(body(order).customer!.telephone).toBe('+44 7700 900123');
      expect(body(order).homeAddress).toMatchObject({ address1: "'1 High Street", address2: '-Flat 2' });
      expect(item(order, 0)).toMatchObject({ medication: '@Paracetamol 500mg tablets' });
      expect(item(order, 0)).toMatchObject({ dosageInstructions: "'=Two tablets" });
      expect(body(order).clinicInformation!.address2).toBe('\tSuite 4');
      // The source kept for the order is the file's text, apostrophes and all.
      expect(order.source.records?.[0]).toContain(`"'+44 7700 900123"`);
    },
  },
  {
    file: 'excel-text-formula.csv',
    format: 'csv',
    orders: 1,
    invalid: 0,
    check: (r) => {
      const order = r.orders[0]!;
      // ="…" is what a spreadsheet shows as the text inside; a guarded '=… stays the text it protects.
      expect(order.clinicOrderId).toBe('000123');
      expect(body(order).customer!.telephone).toBe('07700900123');
      expect(item(order, 0)).toMatchObject({ dmdCode: '42109611000001109', dosageInstructions: '="Two" tablets' });
    },
  },
  // Files that are not orders: one clear problem each
  { file: 'empty.csv', format: 'csv', orders: 0, invalid: 0, fileProblems: ['file.empty'] },
  { file: 'whitespace-only.csv', format: 'csv', orders: 0, invalid: 0, fileProblems: ['file.empty'] },
  { file: 'header-only.csv', format: 'csv', headerRow: 1, orders: 0, invalid: 0, fileProblems: ['csv.noRows'] },
  { file: 'no-header.csv', format: 'csv', orders: 0, invalid: 0, fileProblems: ['csv.noHeader'] },
  { file: 'binary.dat', format: 'csv', orders: 0, invalid: 0, fileProblems: ['file.binary'] },
  ...[
    ['nul-padded.csv', 'csv', 'utf-8', 3],
    ['nul-padded.hl7', 'hl7', 'utf-8', 1],
    ['nul-padded-utf16le.csv', 'csv', 'utf-16le', 1],
  ].map(([file, format, encoding, orders]): Case => ({
    file: file as string,
    format: format as 'csv' | 'hl7',
    encoding: encoding as string,
    orders: orders as number,
    invalid: 0,
    fileProblems: ['file.trailingPadding'],
    check: (r) => {
      expect(r.fileProblems[0]).toMatchObject({ severity: 'warning' });
      expect(r.fileProblems[0]!.text).toMatch(
        /^The file ends in [\d,]+ zero bytes \(0x00\), padding some systems add to fill a block; they were left out\.$/,
      );
      if (file === 'nul-padded.csv') {
        expect(r.orders.map((o) => strip(o.body))).toEqual(templateExampleOrders().map(strip));
      }
      if (file === 'nul-padded-utf16le.csv') expect(body(r.orders[0]).customer!.firstName).toBe('Zoë');
    },
  })),
  ...[
    ['ctrl-z-end.csv', 'csv', 3, 'The file ends in an end-of-file mark (0x1A, Ctrl-Z); it was left out.'],
    [
      'ctrl-z-padded.hl7',
      'hl7',
      1,
      'The file ends in an end-of-file mark (0x1A, Ctrl-Z) and 461 zero bytes (0x00), padding some systems add to fill a block; they were left out.',
    ],
  ].map(([file, format, orders, text]): Case => ({
    file: file as string,
    format: format as 'csv' | 'hl7',
    orders: orders as number,
    invalid: 0,
    fileProblems: ['file.trailingPadding'],
    check: (r) => expect(r.fileProblems[0]).toMatchObject({ severity: 'warning', text }),
  })),
  { file: 'nul-inside.csv', format: 'csv', orders: 0, invalid: 0, fileProblems: ['file.binary'] },
  {
    file: 'workbook.xlsx',
    format: 'csv',
    orders: 0,
    invalid: 0,
    fileProblems: ['file.binary'],
    check: (r) =>
      expect(r.fileProblems[0]!.text).toBe(
        'The file is an Excel workbook (.xlsx) or another ZIP archive, not a CSV or HL7 text file: in Excel, save it as "CSV UTF-8" (File, Save As) and import that.',
      ),
  },
  // Invalid values, one kind per file
  {
    file: 'bad-dmd-check-digit.csv',
    format: 'csv',
    orders: 1,
    invalid: 1,
    problems: ['dmd.checkDigit@2:prescribedItems.0.dmdCode'],
  },
  {
    file: 'bad-dmd-partition.csv',
    format: 'csv',
    orders: 1,
    invalid: 1,
    problems: ['dmd.partition@2:prescribedItems.0.dmdCode'],
  },
  {
    file: 'bad-dmd-length.csv',
    format: 'csv',
    orders: 1,
    invalid: 1,
    problems: ['dmd.length@2:prescribedItems.0.dmdCode'],
  },
  {
    file: 'dmd-excel-mangled.csv',
    format: 'csv',
    orders: 1,
    invalid: 1,
    problems: ['dmd.excelMangled@2:prescribedItems.0.dmdCode'],
  },
  {
    file: 'bad-postcode.csv',
    format: 'csv',
    orders: 1,
    invalid: 1,
    problems: ['postcode.format@2:homeAddress.postCode', 'postcode.format@2:deliveryAddress.postCode'],
  },
  {
    file: 'bad-country.csv',
    format: 'csv',
    orders: 1,
    invalid: 1,
    problems: ['country.format@2:clinicInformation.countryCode'],
  },
  {
    file: 'dob-future.csv',
    format: 'csv',
    orders: 1,
    invalid: 1,
    problems: ['dateOfBirth.future@2:customer.dateOfBirth'],
  },
  {
    file: 'dob-implausible.csv',
    format: 'csv',
    orders: 1,
    invalid: 1,
    problems: ['dateOfBirth.implausible@2:customer.dateOfBirth'],
  },
  {
    file: 'dob-not-a-date.csv',
    format: 'csv',
    orders: 1,
    invalid: 1,
    problems: ['date.invalid@2:customer.dateOfBirth'],
  },
  {
    file: 'dob-date-times.csv',
    format: 'csv',
    orders: 4,
    invalid: 1,
    problems: ['date.ambiguous@2:customer.dateOfBirth'],
    check: (r) => {
      expect(r.orders.slice(1).map((o) => body(o).customer!.dateOfBirth)).toEqual([
        '1980-01-15',
        '1980-01-15',
        '1980-01-15',
      ]);
      expect(r.orders[0]!.problems[0]!.text).toBe(
        'Date of birth \'1980-06-14T23:00:00.000Z\' (column "dateOfBirth") is a date and time in time zone UTC (Z), late in the day: it may be 14 Jun 1980, or midnight of 15 Jun 1980 in a zone ahead of it (as British Summer Time is of UTC); write the date alone, as YYYY-MM-DD.',
      );
    },
  },
  { file: 'bad-email.csv', format: 'csv', orders: 1, invalid: 1, problems: ['email.format@2:customer.email'] },
  { file: 'bad-phone.csv', format: 'csv', orders: 1, invalid: 1, problems: ['telephone.format@2:customer.telephone'] },
  {
    file: 'bad-registration.csv',
    format: 'csv',
    orders: 1,
    invalid: 1,
    problems: ['registrationNumber.format@2:prescribingDoctor.registrationNumber'],
  },
  {
    file: 'bad-quantities.csv',
    format: 'csv',
    orders: 4,
    invalid: 4,
    problems: [
      'quantity.range@2:prescribedItems.0.quantity',
      'quantity.range@3:prescribedItems.0.quantity',
      'value.notWholeNumber@4:prescribedItems.0.quantity',
      'value.notNumber@5:prescribedItems.0.pack',
    ],
  },
  {
    file: 'unknown-codes.csv',
    format: 'csv',
    orders: 1,
    invalid: 1,
    problems: [
      'enum.unknown@2:customer.title',
      'enum.unknown@2:customer.gender',
      'enum.unknown@2:prescription.courierCode',
    ],
  },
  {
    file: 'missing-required.csv',
    format: 'csv',
    orders: 1,
    invalid: 1,
    problems: ['field.required@2:customer.surname', 'field.required@2:prescribedItems.0.medication'],
  },
  // HL7 v2: framings, batches, message types
  ...['rde-single.hl7', 'rde-lf.hl7', 'rde-crlf.hl7'].map((file): Case => ({
    file,
    format: 'hl7',
    orders: 1,
    invalid: 0,
    check: (r) => {
      expect(r.messageTypes).toEqual(['RDE^O11']);
      const order = r.orders[0]!;
      expect(order.source.orderControl).toBe('NW');
      expect(order.source.hl7).toMatch(/^MSH\|[^\r\n]+\rPID\|[^\r\n]+\rORC\|[^\r\n]+\rRXE\|[^\r\n]+$/);
      expect(body(order).customer).toMatchObject({
        surname: 'Example',
        firstName: 'Alex',
        title: 'Ms',
        dateOfBirth: '1980-01-15',
        gender: 'Female',
      });
      expect(order.provenance['prescribedItems.0.dmdCode']).toMatchObject({ kind: 'hl7', message: 1, path: 'RXE-2.1' });
      expect(order.provenance['prescription.repeatsAllowed']).toMatchObject({ path: 'RXE-12.1' });
      expect((order.provenance['customer.surname'] as { segment: string }).segment).toMatch(/^PID\|1\|/);
    },
  })),
  {
    file: 'rde-many.hl7',
    format: 'hl7',
    orders: 3,
    invalid: 0,
    check: (r) => expect(r.orders.map((o) => o.source.message)).toEqual([1, 2, 3]),
  },
  { file: 'batch.hl7', format: 'hl7', orders: 3, invalid: 0, fileProblems: [] },
  { file: 'batch-count-mismatch.hl7', format: 'hl7', orders: 2, invalid: 0, fileProblems: ['hl7.batchCount'] },
  {
    file: 'batch-truncated.hl7',
    format: 'hl7',
    orders: 2,
    invalid: 0,
    fileProblems: ['hl7.batchUnclosed', 'hl7.fileUnclosed'],
  },
  {
    file: 'mllp.hl7',
    format: 'hl7',
    orders: 2,
    invalid: 0,
    check: (r) => {
      expect(r.orders.map((o) => o.clinicOrderId)).toEqual(['M-1', 'M-2']);
      for (const order of r.orders) {
        expect(order.source.hl7).not.toContain('\x0b');
        expect(order.source.hl7).not.toContain('\x1c');
      }
    },
  },
  {
    file: 'custom-delimiters.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    check: (r) => {
      expect(body(r.orders[0]).customer).toMatchObject({ surname: 'Smith#Jones', email: 'alex@example.test' });
      expect(body(r.orders[0]).deliveryAddress).toMatchObject({ address1: '1 High Street', county: 'West Yorkshire' });
    },
  },
  {
    file: 'escapes.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    check: (r) => {
      expect(body(r.orders[0]).customer!.surname).toBe("O'Brien & Sons");
      expect(item(r.orders[0], 0)!.medication).toBe('Co-codamol 30/500 | caplets ^ strong ~ 100 \\ pack');
      expect(item(r.orders[0], 0)!.dosageInstructions).toBe('Two caplets\n£5 every six hours');
    },
  },
  {
    file: 'escapes-local-charset.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    problems: ['hl7.localEscape@1:'],
    check: (r) => {
      const order = r.orders[0]!;
      // \ZAP\ left out (and said, naming the value); \H\…\N\ highlighting keeps its text.
      expect(body(order).customer).toMatchObject({ surname: 'OBrien', firstName: 'Alex' });
      expect(order.problems[0]!.text).toContain('PID-5.1 (\\ZAP\\)');
      // A switch to ASCII changes nothing; JIS X 0208 text after \M2442\ is read as the characters it writes.
      expect(item(order, 0)).toMatchObject({
        medication: 'Paracetamol 500mg tablets',
        dosageInstructions: 'Two tablets up to four times a day こんにちは',
      });
    },
  },
  {
    file: 'escapes-unapplied.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 1,
    problems: ['hl7.characterSetEscape@1:', 'hl7.escapeUnreadable@1:'],
    check: (r) => {
      const order = r.orders[0]!;
      // The text after a switch that cannot be applied is kept, never dropped, and the order is held back.
      expect(body(order).customer!.firstName).toBe('Zoë');
      const [charset, lone] = order.problems;
      expect(charset!.text).toContain('PID-5.2 switches character set with \\C2D42\\ (ISO 8859-2)');
      // An escape cut in two by a component separator: its text kept, the value named.
      expect(item(order, 0)!.dosageInstructions).toBe('Two tablets up to four times a day \\X2E');
      expect(lone!.text).toContain("RXE-7.2 ('…mes a day \\X2E')");
    },
  },
  {
    file: 'second-patient.hl7',
    format: 'hl7',
    orders: 2,
    invalid: 1,
    problems: ['hl7.multiplePatients@1:', 'hl7.repeatedPatient@2:'],
    check: (r) => {
      expect(r.orders[0]!.problems[0]!.text).toContain('PID segment 3 differs from the first PID (segment 2)');
      expect(r.orders[1]!.valid).toBe(true);
    },
  },
  {
    file: 'truncation-character.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 1,
    problems: ['hl7.truncated@1:'],
    check: (r) => {
      const order = r.orders[0]!;
      expect(body(order).homeAddress!.address2).toBe('Flat #2');
      expect(item(order, 0)!.dosageInstructions).toBe('Two tablets up to four tim');
      expect(order.problems[0]!.text).toContain("RXE-7.2 ends with '#', the truncation character MSH-2 declares");
    },
  },
  {
    file: 'segment-name-case.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    fileProblems: ['hl7.segmentNameCase'],
    check: (r) => {
      expect(r.fileProblems[0]!.text).toContain("first on line 2: 'pid'");
      expect(body(r.orders[0]).customer!.surname).toBe('Example');
      expect(item(r.orders[0], 0)!.dmdCode).toBe('42109611000001109');
    },
  },
  ...[
    ['omp-o09.hl7', 'OMP^O09', 'O-1'],
    ['orm-o01.hl7', 'ORM^O01', 'R-1'],
  ].map(([file, type, id]): Case => ({
    file: file!,
    format: 'hl7',
    orders: 1,
    invalid: 0,
    check: (r) => {
      expect(r.messageTypes).toEqual([type]);
      const order = r.orders[0]!;
      expect(order.clinicOrderId).toBe(id);
      expect(item(order, 0)).toMatchObject({
        dmdCode: '42109611000001109',
        quantity: 32,
        dosageInstructions: 'Two tablets up to four times a day',
      });
      expect(order.provenance['prescribedItems.0.quantity']).toMatchObject({ path: 'RXO-11.1' });
      expect(order.provenance['prescription.repeatsAllowed']).toMatchObject({ path: 'RXO-13.1' });
    },
  })),
  {
    file: 'cancel-ca.hl7',
    name: 'cancel-ca.hl7 for an order sent earlier',
    options: { isKnownOrder: (clinic, id) => clinic === 'CLINIC-A' && id === 'C-1' },
    format: 'hl7',
    orders: 1,
    invalid: 0,
    check: (r) => expect(r.orders[0]!.source.orderControl).toBe('CA'),
  },
  {
    file: 'cancel-ca.hl7',
    name: 'cancel-ca.hl7 for an order never sent',
    options: { isKnownOrder: () => false },
    format: 'hl7',
    orders: 1,
    invalid: 1,
    problems: ['cancel.unknownOrder@1:prescription.clinicOrderId'],
  },
  {
    file: 'gender-numeric.csv',
    format: 'csv',
    orders: 4,
    invalid: 0,
    problems: [2, 3, 4, 5].map((row) => `gender.numericCode@${row}:customer.gender`),
    check: (r) => {
      expect(r.orders.map((o) => body(o).customer!.gender)).toEqual(['Male', 'Female', 'Unknown', 'Unknown']);
      const [male, , notKnown, notSpecified] = r.orders.map((o) => o.problems[0]!);
      expect(male).toMatchObject({ severity: 'warning', row: 2 });
      expect(male!.text).toBe(
        "Gender '1' (column \"gender\") is a numeric sex code, read as 'Male' (1 male, 2 female, 0 not known, 9 not specified, as the NHS Data Dictionary and ISO 5218 number them); if the sender means another code, map it in the mapping profile.",
      );
      expect(notKnown!.text).toContain("Gender '0' (column \"gender\") is a numeric sex code, read as 'Unknown'");
      expect(notSpecified!.text).toContain("read as 'Unknown' (9 is 'not specified' or 'indeterminate' in NHS codes");
    },
  },
  {
    file: 'gender-numeric.csv',
    name: 'gender-numeric.csv with a profile that maps 9 itself',
    options: { profile: { ...TEMPLATE_PROFILE, name: 'numeric sex', valueMaps: { gender: { '9': 'Other' } } } },
    format: 'csv',
    orders: 4,
    invalid: 0,
    problems: [2, 3, 4].map((row) => `gender.numericCode@${row}:customer.gender`),
    check: (r) => expect(body(r.orders[3]).customer!.gender).toBe('Other'),
  },
  {
    file: 'gender-numeric.csv',
    name: 'gender-numeric.csv where the environment has no gender for not known',
    options: { codeLists: { ...DEFAULT_CODE_LISTS, genders: ['Male', 'Female'] } },
    format: 'csv',
    orders: 4,
    invalid: 2,
    problems: [
      'gender.numericCode@2:customer.gender',
      'gender.numericCode@3:customer.gender',
      'enum.unknown@4:customer.gender',
      'enum.unknown@5:customer.gender',
    ],
  },
  {
    file: 'gender-numeric.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    problems: ['gender.numericCode@1:customer.gender'],
    check: (r) => {
      expect(body(r.orders[0]).customer!.gender).toBe('Female');
      expect(r.orders[0]!.problems[0]!.text).toContain("Gender '2' (PID-8.1) is a numeric sex code, read as 'Female'");
    },
  },
  ...(['gender-table-0001.hl7', 'gender-table-0001.csv'] as const).flatMap((file): Case[] => {
    const at = file.endsWith('.hl7') ? [1, 2] : [2, 3];
    const from = file.endsWith('.hl7') ? 'PID-8.1' : 'column "gender"';
    return [
      {
        file,
        format: file.endsWith('.hl7') ? 'hl7' : 'csv',
        orders: 6,
        invalid: 0,
        problems: at.map((where) => `gender.approximated@${where}:customer.gender`),
        check: (r) => {
          expect(r.orders.map((o) => body(o).customer!.gender)).toEqual([
            'Other',
            'Unknown',
            'Other',
            'Unknown',
            'Male',
            'Female',
          ]);
          expect(r.orders[0]!.problems[0]).toMatchObject({ severity: 'warning' });
          expect(r.orders[0]!.problems[0]!.text).toBe(
            `Gender 'A' (${from}) is HL7 table 0001's code for ambiguous, read as 'Other', the nearest of this environment's genders (neither male nor female; the order cannot say ambiguous); if the clinic means another, map 'A' in the mapping profile.`,
          );
          expect(r.orders[1]!.problems[0]!.text).toContain(
            `Gender 'N' (${from}) is HL7 table 0001's code for not applicable, read as 'Unknown'`,
          );
        },
      },
      {
        file,
        name: `${file} where the environment has only Male and Female`,
        format: file.endsWith('.hl7') ? 'hl7' : 'csv',
        options: { codeLists: { ...DEFAULT_CODE_LISTS, genders: ['Male', 'Female'] } },
        orders: 6,
        invalid: 4,
        problems: [0, 1, 2, 3].map((i) => `enum.unknown@${at[0]! + i}:customer.gender`),
        check: (r) => {
          expect(r.orders.slice(4).map((o) => body(o).customer!.gender)).toEqual(['Male', 'Female']);
          expect(r.orders.map((o) => o.problems.length)).toEqual([1, 1, 1, 1, 0, 0]);
          expect(r.orders[2]!.problems[0]!.text).toBe(
            `Gender 'O' (${from}) is HL7 table 0001's code for other, and none of this environment's genders (Male, Female) means other: map 'O' to one of them in the mapping profile, or correct the value.`,
          );
        },
      },
    ];
  }),
  {
    file: 'amounts-currency.csv',
    format: 'csv',
    orders: 6,
    invalid: 3,
    problems: [
      'value.currency@5:prescription.clinicOrderValue',
      'value.currency@6:clinicInformation.prescriberFee',
      'field.invalid@7:clinicInformation.prescriberFee',
    ],
    check: (r) => {
      expect(r.orders.slice(0, 3).map((o) => body(o).prescription!.clinicOrderValue)).toEqual([12.5, 12.5, 12.5]);
      const [dollars, euros] = [r.orders[3]!.problems[0]!, r.orders[4]!.problems[0]!];
      expect(dollars.text).toBe(
        "Order value '$4' (column \"clinicOrderValue\") is written in dollars ('$': USD, AUD, CAD, NZD, SGD or HKD), but the order's currency code is GBP: write the amount in GBP as a number alone, or correct the currency code.",
      );
      expect(euros.text).toBe(
        "Prescriber fee '€3.20' (column \"clinicPrescriberFee\") is written in euros ('€': EUR), but the order's currency code is GBP: write the amount in GBP as a number alone, or correct the currency code.",
      );
      // Refused values stay as written, for the preview and the error export.
      expect(body(r.orders[3]).prescription!.clinicOrderValue).toBe('$4');
      expect(r.orders[3]!.source.records).toEqual([expect.stringContaining(',$4,')]);
    },
  },
  {
    file: 'amounts-currency-semicolon.csv',
    format: 'csv',
    delimiter: ';',
    options: { codeLists: { ...DEFAULT_CODE_LISTS, currencyCodes: ['GBP', 'EUR'] } },
    orders: 3,
    invalid: 1,
    problems: ['value.currency@4:prescription.clinicOrderValue'],
    check: (r) => {
      expect(r.orders.map((o) => body(o).prescription!.clinicOrderValue)).toEqual([3.2, 3.2, '£1']);
      expect(r.orders[2]!.problems[0]!.text).toContain(
        "is written in pounds ('£': GBP), but the order's currency code is EUR",
      );
    },
  },
  {
    file: 'amount-mo.hl7',
    format: 'hl7',
    options: {
      profile: {
        ...HL7_PROFILE,
        hl7FieldMap: { clinicOrderValue: 'ZPY-1', clinicPrescriberFee: 'ZPY-2' },
      },
    },
    orders: 3,
    invalid: 2,
    problems: ['value.currency@2:prescription.clinicOrderValue', 'value.currency@3:clinicInformation.prescriberFee'],
    check: (r) => {
      expect(body(r.orders[0]).prescription!.clinicOrderValue).toBe(12.5);
      expect(body(r.orders[0]).clinicInformation!.prescriberFee).toBe(4);
      expect(body(r.orders[2]).prescription!.clinicOrderValue).toBe(7.25);
      expect(r.orders[1]!.problems[0]!.text).toBe(
        "Order value '12.50 USD' (ZPY-1) is written in USD, but the order's currency code is GBP: write the amount in GBP as a number alone, or correct the currency code.",
      );
      expect(r.orders[2]!.problems[0]!.text).toContain("Prescriber fee '4.00 EUR' (ZPY-2.1) is written in EUR");
    },
  },
  {
    file: 'whole-zero-decimals.csv',
    format: 'csv',
    orders: 4,
    invalid: 1,
    problems: ['value.notWholeNumber@5:prescribedItems.0.quantity'],
    check: (r) => {
      expect(r.orders[0]!.body).toMatchObject({ prescribedItems: [{ quantity: 32 }] });
      expect(r.orders[1]!.body).toMatchObject({ prescribedItems: [{ pack: 2 }] });
      expect(r.orders[2]!.body).toMatchObject({ prescription: { repeatsAllowed: 1 } });
      expect(r.orders[3]!.problems[0]!.text).toBe(
        'Item 1 quantity \'2.50\' (column "quantity") is not a whole number.',
      );
    },
  },
  {
    file: 'whole-zero-decimals.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    check: (r) => {
      expect(r.orders[0]!.body).toMatchObject({
        prescription: { repeatsAllowed: 2 },
        prescribedItems: [{ quantity: 30 }],
      });
    },
  },
  {
    file: 'null-cells.csv',
    format: 'csv',
    orders: 3,
    invalid: 1,
    problems: [
      'csv.nullText@2:',
      'csv.nullText@2:',
      'csv.nullText@3:',
      'csv.nullText@4:',
      'field.required@4:customer.surname',
    ],
    check: (r) => {
      const [first, second] = r.orders.map((o) => body(o));
      expect(first!.homeAddress).not.toHaveProperty('address2');
      expect(first!.customer).not.toHaveProperty('email');
      expect(second).toMatchObject({ clinicInformation: { address2: 'NULL' } });
      expect((second!.prescribedItems as unknown as Record<string, unknown>[])[0]).not.toHaveProperty('pack');
      expect(r.orders[0]!.problems.map((p) => p.text)).toContain(
        'Row 2, column "homeAddress2", holds \'NULL\', which database exports write for no value, so the cell was read as empty (home address line 2). If it is meant as text, write it as ="NULL".',
      );
      expect(r.orders[1]!.problems[0]!.text).toContain('(item 1 packs)');
      expect(r.orders[0]!.source.records![0]).toContain(',NULL,');
    },
  },
  {
    file: 'phones-as-numbers.csv',
    format: 'csv',
    orders: 4,
    invalid: 4,
    problems: [
      'telephone.format@2:customer.telephone',
      'telephone.format@3:clinicInformation.contactNumber',
      'telephone.format@4:customer.telephone',
      'telephone.format@5:customer.telephone',
    ],
    check: (r) => {
      expect(r.orders.map((o) => o.problems[0]!.text)).toEqual([
        'Telephone \'7700900123\' has no leading 0, as a spreadsheet drops it from a number: if it is 07700900123, write that and keep the column as text (column "telephone").',
        'Clinic phone \'1904000000\' has no leading 0, as a spreadsheet drops it from a number: if it is 01904000000, write that and keep the column as text (column "clinicContactNumber").',
        'Telephone \'4.47701E+11\' looks like a spreadsheet turned the phone number into a rounded number, losing digits; format the column as text and export again (column "telephone").',
        'Telephone \'447700900123\' starts with the country code 44 without its +: write +447700900123 (column "telephone").',
      ]);
    },
  },
  {
    file: 'gender-words.csv',
    format: 'csv',
    orders: 5,
    invalid: 0,
    problems: [2, 4, 5, 6].map((row) => `gender.approximated@${row}:customer.gender`),
    check: (r) => {
      expect(r.orders.map((o) => body(o).customer!.gender)).toEqual([
        'Other',
        'Unknown',
        'Unknown',
        'Other',
        'Unknown',
      ]);
      expect(r.orders[0]!.problems[0]!.text).toBe(
        "Gender 'Indeterminate' (column \"gender\") has no gender of its own in this environment, read as 'Other', the nearest of this environment's genders (neither male nor female; the order cannot say indeterminate); if the clinic means another, map 'Indeterminate' in the mapping profile.",
      );
    },
  },
  {
    file: 'gender-words.csv',
    name: 'gender-words.csv where the environment has only Male and Female',
    format: 'csv',
    options: { codeLists: { ...DEFAULT_CODE_LISTS, genders: ['Male', 'Female'] } },
    orders: 5,
    invalid: 5,
    problems: [2, 3, 4, 5, 6].map((row) => `enum.unknown@${row}:customer.gender`),
    check: (r) => {
      expect(r.orders[1]!.problems[0]!.text).toBe(
        "Gender 'not known' (column \"gender\") has no gender of its own in this environment, and none of this environment's genders (Male, Female) means not known: map 'not known' to one of them in the mapping profile, or correct the value.",
      );
    },
  },
  {
    file: 'space-before-quote.csv',
    format: 'csv',
    orders: 3,
    invalid: 0,
    problems: ['csv.lineBreakInCell@2:prescribedItems.0.dosageInstructions'],
    fileProblems: ['csv.spaceBeforeQuote'],
    check: (r) => {
      const items = r.orders.flatMap((o) => (o.body as { prescribedItems: Record<string, unknown>[] }).prescribedItems);
      expect(items[0]!.dosageInstructions).toBe('Two tablets, with water,\r\nup to four times a day');
      expect(items.map((item) => item.medication)).toContain('Paracetamol 500mg, caplets');
      expect(items.map((item) => item.quantity)).toEqual([32, 24, 12, 16]);
      expect(r.fileProblems[0]).toMatchObject({ severity: 'warning', row: 2 });
    },
  },
  {
    file: 'repeated-row.csv',
    format: 'csv',
    orders: 1,
    invalid: 0,
    problems: ['csv.repeatedRow@3:'],
    check: (r) => {
      expect((r.orders[0]!.body as { prescribedItems: unknown[] }).prescribedItems).toHaveLength(3);
      expect(r.orders[0]!.problems[0]).toMatchObject({
        severity: 'warning',
        row: 3,
        text: "Row 3 is the same as row 2, so the order has the item 'Paracetamol 500mg tablets' twice; if the row was copied by mistake, remove it.",
      });
    },
  },
  {
    file: 'summary-rows.csv',
    format: 'csv',
    orders: 6,
    invalid: 3,
    problems: ['csv.summaryRow@4:', 'csv.summaryRow@7:', 'csv.summaryRow@8:'],
    check: (r) => {
      expect(r.orders.filter((o) => o.valid).map((o) => strip(o.body))).toEqual(templateExampleOrders().map(strip));
      const summaries = r.orders.filter((o) => !o.valid);
      expect(summaries.map((o) => o.source.rows)).toEqual([[4], [7], [8]]);
      expect(summaries[0]).toMatchObject({ clinicCode: null, clinicOrderId: null, body: {} });
      expect(summaries.map((o) => o.problems[0]!.text)).toEqual([
        "Row 4 looks like a summary line, not an order: it fills only column \"clinicOrderId\" ('CLINIC-A subtotal') and column \"repeatsAllowed\" ('2'), with no patient's surname or date of birth and no item. Remove it from the file, or leave it: it is never sent.",
        "Row 7 looks like a summary line, not an order: it fills only column \"clinicCode\" ('Total: 3 orders'), with no patient's surname or date of birth and no item. Remove it from the file, or leave it: it is never sent.",
        "Row 8 looks like a summary line, not an order: it fills only column \"clinicCode\" ('End of report'), with no patient's surname or date of birth and no item. Remove it from the file, or leave it: it is never sent.",
      ]);
    },
  },
  {
    file: 'joined-exports.csv',
    format: 'csv',
    orders: 6,
    invalid: 3,
    problems: ['csv.summaryRow@4:', 'csv.headerRepeated@5:', 'csv.summaryRow@8:'],
    check: (r) => {
      expect(r.orders.filter((o) => o.valid).map((o) => strip(o.body))).toEqual(templateExampleOrders().map(strip));
      const texts = r.orders.filter((o) => !o.valid).map((o) => o.problems[0]!.text);
      expect(texts[0]).toBe(
        "Row 4 looks like a summary line, not an order: it fills only column \"clinicCode\" ('Printed 1 June 2025'), column \"clinicOrderId\" ('by EPR') and column \"title\" ('page 1'), with no patient's surname or date of birth and no item. Remove it from the file, or leave it: it is never sent.",
      );
      expect(texts[1]).toBe(
        'Row 5 repeats the header row (were two files joined?), so it is not an order. Remove it from the file, or leave it: it is never sent.',
      );
      expect(texts[2]).toContain("and column \"firstName\" ('End'), with no patient's surname");
    },
  },
  {
    file: 'unusual-spaces.csv',
    format: 'csv',
    orders: 2,
    invalid: 0,
    fileProblems: ['text.unusualSpaces'],
    check: (r) => {
      const two = orderById(r, 'ORD-4001')!;
      expect(two.source.rows).toEqual([2, 3]);
      expect(body(two).homeAddress!.postCode).toBe('LS1 4AP');
      expect(body(two).deliveryAddress!.postCode).toBe('LS1 4AP');
      const one = orderById(r, 'ORD-2001')!;
      expect(body(one).customer!.telephone).toBe('07700 900123');
      expect(item(one, 0)).toMatchObject({
        medication: 'Paracetamol 500mg tablets',
        dosageInstructions: 'Two tablets up to four times a day',
      });
      expect(one.source.records![0]).toContain('07700\u2007900123');
      expect(r.fileProblems[0]).toMatchObject({ severity: 'warning', row: 2 });
      expect(r.fileProblems[0]!.text).toBe(
        'Values from row 2 on hold characters that look like spaces or nothing but are not plain spaces: U+00A0 (no-break space), U+2007 (figure space), U+200B (zero-width space), U+202F (narrow no-break space), U+FEFF (byte order mark). They were read as plain spaces, the zero-width ones left out, so that values that look the same are the same.',
      );
    },
  },
  {
    file: 'unusual-spaces.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    fileProblems: ['text.unusualSpaces'],
    check: (r) => {
      expect(body(r.orders[0]).homeAddress!.postCode).toBe('LS1 4AP');
      expect(body(r.orders[0]).customer!.firstName).toBe('Alex');
      expect(item(r.orders[0], 0)!.dosageInstructions).toBe('Two tablets up to four times a day');
      expect(r.fileProblems[0]).toMatchObject({ severity: 'warning', message: 1 });
      expect(r.fileProblems[0]!.text).toContain('Values from message 1 on hold characters that look like spaces');
      expect(r.fileProblems[0]!.text).toContain('U+200B (zero-width space)');
    },
  },
  {
    file: 'rde-o01-v23.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    check: (r) => {
      expect(r.messageTypes).toEqual(['RDE^O01']);
      const order = r.orders[0]!;
      expect(order.clinicOrderId).toBe('V23-1');
      expect(body(order)).toMatchObject({
        customer: { title: 'Ms', firstName: 'Alex', surname: 'Example', dateOfBirth: '1980-01-15', gender: 'Female' },
        homeAddress: { address1: '1 High Street', city: 'Leeds', postCode: 'LS1 4AP', countryCode: 'GBR' },
        prescribingDoctor: { registrationNumber: '7123456' },
        clinicInformation: { clinicCode: 'CLINIC-A', name: 'Example Clinic', postcode: 'YO1 7HH' },
      });
      expect(item(order, 0)).toMatchObject({ dmdCode: '42109611000001109', quantity: 32 });
      expect(order.provenance['prescribedItems.0.quantity']).toMatchObject({ path: 'RXE-10.1' });
      expect(order.source.hl7).toContain('\rPV1|1|O|');
    },
  },
  {
    file: 'rds-o13-dispense.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 1,
    problems: ['hl7.messageType@1:'],
    check: (r) =>
      expect(r.orders[0]!.problems[0]!.text).toBe(
        "Message 1 is 'RDS^O13' (MSH-9), a pharmacy dispense: it records medicine already dispensed, not an order to dispense. Only RDE^O11, RDE^O01, OMP^O09 and ORM^O01 carry orders; ask the sender for the prescription's order message.",
      ),
  },
  { file: 'wrong-type-adt.hl7', format: 'hl7', orders: 1, invalid: 1, problems: ['hl7.messageType@1:'] },
  {
    file: 'broken-msh.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 1,
    problems: ['hl7.unreadable@1:'],
    fileProblems: ['hl7.strayContent'],
    check: (r) => expect(r.fileProblems[0]!.text).toContain('Line 2 is outside any message'),
  },
  {
    file: 'multiple-rxe.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    check: (r) => {
      const items = body(r.orders[0]).prescribedItems as unknown as Record<string, unknown>[];
      expect(items.map((i) => i.dmdCode)).toEqual(['42109611000001109', '10362601000001103', '123456781000001105']);
      expect(r.orders[0]!.provenance['prescribedItems.2.quantity']).toMatchObject({ path: 'RXE-10.1' });
    },
  },
  {
    file: 'coding-system-ndc.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 1,
    problems: ['hl7.codingSystem@1:prescribedItems.0.dmdCode'],
    check: (r) => {
      expect(item(r.orders[0], 0)!.medication).toBe('Paracetamol 500mg tablets');
      expect(r.orders[0]!.problems[0]!.text).toContain("coded in 'NDC', not dm+d or SNOMED CT");
    },
  },
  {
    file: 'clinic-from-msh4.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    check: (r) => {
      expect(r.orders[0]!.clinicCode).toBe('CLINIC-MSH');
      expect(r.orders[0]!.provenance['clinicInformation.clinicCode']).toMatchObject({ path: 'MSH-4.1' });
    },
  },
  {
    file: 'duplicate-in-file.hl7',
    format: 'hl7',
    orders: 2,
    invalid: 1,
    problems: ['order.duplicateInFile@2:prescription.clinicOrderId'],
  },
  {
    file: 'windows-1252.hl7',
    format: 'hl7',
    encoding: 'windows-1252',
    orders: 1,
    invalid: 0,
    check: (r) => expect(body(r.orders[0]).customer!.firstName).toBe('Zoë'),
  },
  {
    file: 'delivery-mailing.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    check: (r) => {
      expect(body(r.orders[0]).homeAddress).toMatchObject({ address1: '1 High Street', city: 'Leeds' });
      expect(body(r.orders[0]).deliveryAddress).toEqual({
        address1: '3 Test Lane',
        city: 'York',
        postCode: 'YO1 7HH',
        countryCode: 'GBR',
      });
      expect(r.orders[0]!.provenance['deliveryAddress.city']).toMatchObject({ path: 'PID-11[2].3' });
    },
  },
  {
    file: 'repeats-disagree.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 1,
    problems: ['order.rowsDisagree@1:prescription.repeatsAllowed'],
  },
  { file: 'stray-segments.hl7', format: 'hl7', orders: 1, invalid: 0, fileProblems: ['hl7.strayContent'] },
  // Repeated fields (#15, class 4)
  {
    file: 'repeated-dosage.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    check: (r) => {
      expect(item(r.orders[0], 0)!.dosageInstructions).toBe('One tablet daily; with food');
      expect(item(r.orders[0], 1)!.dosageInstructions).toBe('Take one. With water. Avoid alcohol');
      expect(r.orders[0]!.provenance['prescribedItems.0.dosageInstructions']).toMatchObject({ path: 'RXE-7' });
    },
  },
  {
    file: 'repeated-dosage-orm.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    check: (r) =>
      expect(item(r.orders[0], 0)!.dosageInstructions).toBe(
        'Two tablets; up to four times a day; not more often than every four hours',
      ),
  },
  {
    file: 'repeated-differ.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 1,
    problems: [
      'hl7.repeated@1:customer.dateOfBirth',
      'hl7.repeated@1:prescribingDoctor.registrationNumber',
      'hl7.repeated@1:prescribingDoctor.prescriberName',
      'hl7.repeated@1:prescribedItems.0.quantity',
    ],
    check: (r) => {
      const texts = r.orders[0]!.problems.map((p) => p.text);
      expect(texts).toContain(
        "PID-7.1 repeats with different values ('19800115' and '19810202'), but date of birth holds one; the first was used: check which is meant.",
      );
      expect(texts.find((t) => t.startsWith('ORC-12 repeats'))).toContain("'Dr Jane Smith' and 'Dr Ola Other'");
      expect(body(r.orders[0]).customer!.dateOfBirth).toBe('1980-01-15');
    },
  },
  {
    file: 'repeated-agree.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    check: (r) => {
      const order = r.orders[0]!;
      expect(order.clinicOrderId).toBe('RP-4');
      expect(order.provenance['prescription.clinicOrderId']).toMatchObject({ path: 'ORC-2[2].1' });
      expect(body(order).customer).toMatchObject({
        surname: 'Example',
        firstName: 'Alex',
        title: 'Ms',
        gender: 'Female',
      });
      expect(order.provenance['customer.surname']).toMatchObject({ path: 'PID-5[2].1' });
      expect(item(order, 0)!.quantity).toBe(32);
    },
  },
  {
    file: 'repeated-choice.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    problems: ['hl7.repeatChoice@1:homeAddress.address1'],
    check: (r) => {
      expect(r.orders[0]!.problems[0]).toMatchObject({ severity: 'warning' });
      expect(r.orders[0]!.problems[0]!.text).toBe(
        'PID-11 has 2 home addresses that differ (repetitions 1 and 2); repetition 1 was used.',
      );
      expect(body(r.orders[0]).homeAddress).toMatchObject({ address1: '1 High Street', city: 'Leeds' });
    },
  },
  // CSV headers named twice (#15, class 5)
  {
    file: 'duplicate-header.csv',
    format: 'csv',
    orders: 3,
    invalid: 0,
    fileProblems: ['csv.duplicateHeader'],
    check: (r) => {
      const duplicate = r.fileProblems[0]!;
      expect(duplicate).toMatchObject({ severity: 'error', row: 1 });
      expect(duplicate.text).toContain('"dateOfBirth", "DateOfBirth " (columns 6 and 48)');
      expect(duplicate.text).toContain('"surname", "Surname" (columns 5 and 49)');
      expect(duplicate.text).toContain('Which to read for surname and date of birth cannot be told');
    },
  },
  {
    file: 'duplicate-header.csv',
    name: 'duplicate-header.csv with a profile that chooses the columns',
    options: {
      profile: {
        ...TEMPLATE_PROFILE,
        name: 'Two DOB columns',
        columnPositions: { dateOfBirth: 48, surname: 5 },
      },
    },
    format: 'csv',
    orders: 3,
    invalid: 0,
    check: (r) => {
      expect(body(orderById(r, 'ORD-1001')).customer).toMatchObject({ dateOfBirth: '1980-01-16', surname: 'Example' });
      expect(orderById(r, 'ORD-1001')!.provenance['customer.dateOfBirth']).toMatchObject({ column: 'DateOfBirth ' });
    },
  },
  {
    file: 'duplicate-header.csv',
    name: 'duplicate-header.csv with a profile that chooses a column without that header',
    options: { profile: { ...TEMPLATE_PROFILE, name: 'Wrong', columnPositions: { dateOfBirth: 7, surname: 49 } } },
    format: 'csv',
    orders: 3,
    invalid: 0,
    fileProblems: ['profile.badColumnPosition', 'csv.duplicateHeader'],
    check: (r) => {
      expect(r.fileProblems[0]!.text).toContain('reads date of birth from column 7');
      expect(r.fileProblems[1]!.text).not.toContain('surname');
    },
  },
  {
    file: 'duplicate-header-same-values.csv',
    format: 'csv',
    orders: 1,
    invalid: 0,
    fileProblems: ['csv.duplicateHeader'],
  },
  { file: 'duplicate-unmapped.csv', format: 'csv', orders: 1, invalid: 0, fileProblems: [] },
  {
    file: 'renamed-duplicate.csv',
    options: { profile: OTHER_LAYOUT_PROFILE },
    format: 'csv',
    orders: 2,
    invalid: 0,
    fileProblems: ['csv.renamedDuplicate'],
    check: (r) => {
      expect(r.fileProblems[0]).toMatchObject({ severity: 'warning', row: 1 });
      expect(r.fileProblems[0]!.text).toContain('Column 20 "DOB_1" looks like a second "DOB" column');
    },
  },
  {
    file: 'synonym-duplicate.csv',
    format: 'csv',
    orders: 2,
    invalid: 2,
    problems: 'see check',
    fileProblems: ['csv.duplicateField'],
    check: (r) => {
      expect(r.profile).toBe('suggested');
      expect(r.fileProblems[0]!.text).toBe(
        'Columns 6 "DOB" and 20 "Date of Birth" both name date of birth; column 6 was read (the mapping can choose the other).',
      );
    },
  },
  // Values from the wild (#15, class 8)
  {
    file: 'hl7-null.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    check: (r) => {
      const order = r.orders[0]!;
      expect(JSON.stringify(order.body)).not.toContain('\\"\\"');
      expect(body(order).homeAddress).toEqual({
        address1: '1 High Street',
        city: 'Leeds',
        postCode: 'LS1 4AP',
        countryCode: 'GBR',
      });
      expect(body(order).customer!.email).toBeUndefined();
      expect(body(order).customer!.telephone).toBe('07700900123');
      expect(body(order).clinicInformation!.address2).toBeUndefined();
      expect(body(order).prescription!.repeatsAllowed).toBeUndefined();
    },
  },
  {
    file: 'hl7-null-required.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 1,
    problems: ['field.required@1:customer.dateOfBirth'],
  },
  {
    file: 'address-bad.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    check: (r) => {
      expect(body(r.orders[0]).homeAddress).toMatchObject({ address1: '1 High Street', city: 'Leeds' });
      // No shipping or mailing address (a bad one is never used): delivered to the home address.
      expect(body(r.orders[0]).deliveryAddress).toEqual(body(r.orders[0]).homeAddress);
      expect(r.orders[0]!.provenance['homeAddress.address1']).toMatchObject({ path: 'PID-11[2].1' });
    },
  },
  {
    file: 'address-bad-only.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 1,
    problems: ['hl7.noHomeAddress@1:homeAddress.address1'],
    check: (r) => {
      const text = r.orders[0]!.problems.find((p) => p.code === 'hl7.noHomeAddress')!.text;
      expect(text).toContain('BA (bad address), B (business)');
    },
  },
  {
    file: 'address-parts.hl7',
    format: 'hl7',
    orders: 3,
    invalid: 0,
    problems: [
      'hl7.addressFromParts@1:homeAddress.address1',
      'hl7.addressFromParts@2:homeAddress.address1',
      'hl7.addressFromParts@3:clinicInformation.address1',
    ],
    check: (r) => {
      const [first, second, third] = r.orders;
      expect(body(first).homeAddress!.address1).toBe('1000 Hospital Lane');
      expect(body(first).deliveryAddress!.address1).toBe('1000 Hospital Lane');
      expect(body(second).homeAddress!.address1).toBe('1 High Street');
      expect(body(second).homeAddress!.address2).toBe('Flat 2');
      expect(body(third).clinicInformation!.address1).toBe('10 Market Street');
      expect(first!.problems[0]!.text).toBe(
        "PID-11.1 gives the street line in parts (street or mailing address '1000', street name 'Hospital Lane'): read as '1000 Hospital Lane'. Check it is the address.",
      );
    },
  },
  {
    file: 'address-types.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    check: (r) => {
      expect(body(r.orders[0]).homeAddress).toMatchObject({ address1: '1 High Street', city: 'Leeds' });
      expect(body(r.orders[0]).deliveryAddress).toMatchObject({ address1: '3 Test Lane', city: 'York' });
    },
  },
  {
    file: 'phone-parts.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    problems: ['hl7.phoneExtension@1:clinicInformation.contactNumber'],
    check: (r) => {
      const order = r.orders[0]!;
      expect(body(order).customer).toMatchObject({ telephone: '01632 960000', email: 'alex@example.test' });
      expect(body(order).clinicInformation).toMatchObject({ contactNumber: '+44 1904 000000' });
      expect(order.provenance['customer.telephone']).toMatchObject({ path: 'PID-13' });
      expect(order.problems[0]).toMatchObject({ severity: 'warning' });
      expect(order.problems[0]!.text).toContain("extension '12'");
    },
  },
  {
    file: 'phone-choice.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    check: (r) => {
      // The mobile (CP) before the home landline; the fax never; the mobile only in XTN-12 is read.
      expect(body(r.orders[0]).customer).toMatchObject({ telephone: '07700900999', email: 'alex@example.test' });
      // The clinic's work number before a mobile of the primary residence.
      expect(body(r.orders[0]).clinicInformation).toMatchObject({ contactNumber: '01904000000' });
    },
  },
  {
    file: 'titles-dotted.csv',
    format: 'csv',
    orders: 6,
    invalid: 0,
    check: (r) =>
      expect(r.orders.map((o) => body(o).customer!.title)).toEqual(['Mr', 'Mrs', 'Dr', 'Prof', 'Ms', 'Rev']),
  },
  {
    file: 'title-dotted.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    check: (r) => expect(body(r.orders[0]).customer!.title).toBe('Mr'),
  },
  {
    file: 'coding-systems.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    check: (r) => {
      const items = body(r.orders[0]).prescribedItems as unknown as Record<string, unknown>[];
      expect(items).toHaveLength(8);
      for (const i of items)
        expect(i).toMatchObject({ dmdCode: '42109611000001109', medication: 'Paracetamol 500mg tablets' });
      expect(r.orders[0]!.provenance['prescribedItems.6.dmdCode']).toMatchObject({ path: 'RXE-2.4' });
      expect(r.orders[0]!.provenance['prescribedItems.7.dmdCode']).toMatchObject({ path: 'RXE-2.10' });
    },
  },
  // Encodings from the wild (#15, class 7)
  ...['iso-2022-jp.hl7', 'iso-2022-jp.csv'].map((file): Case => ({
    file,
    format: 'csv',
    orders: 0,
    invalid: 0,
    fileProblems: ['file.unsupportedEncoding'],
    check: (r) => {
      const text = r.fileProblems[0]!.text;
      expect(text).toContain('encoded as ISO-2022-JP');
      expect(text).toContain('which Rx Batch does not read; save it as UTF-8');
      expect(text).not.toContain('binary');
      if (file.endsWith('.hl7')) expect(text).toContain("MSH-18 says 'ISO IR87'");
    },
  })),
  ...[
    ['shift-jis-undeclared.csv', 'Shift_JIS (Japanese)', 'shift_jis'],
    ['euc-jp-undeclared.csv', 'EUC-JP (Japanese)', 'euc-jp'],
  ].map(([file, name, encoding]): Case => ({
    file: file!,
    format: 'csv',
    orders: 0,
    invalid: 0,
    fileProblems: ['file.encodingNotNamed'],
    check: (r) => {
      expect(r.fileProblems[0]!.text).toContain(`look like ${name}`);
      expect(r.fileProblems[0]!.text).toContain('Save it as UTF-8');
      expect(r.encoding).toBe(encoding);
    },
  })),
  {
    file: 'shift-jis-undeclared.csv',
    name: 'shift-jis-undeclared.csv read with its encoding chosen',
    options: { encoding: 'shift_jis' },
    format: 'csv',
    encoding: 'shift_jis',
    orders: 1,
    invalid: 0,
    check: (r) => {
      expect(body(r.orders[0]).customer).toMatchObject({ surname: '山田', firstName: '太郎' });
      expect(item(r.orders[0], 0)!.dosageInstructions).toBe('1日3回 食後に服用');
    },
  },
  ...[
    ['shift-jis-declared.hl7', 'shift_jis', '山田', '太郎'],
    ['gb18030-declared.hl7', 'gb18030', '王', '小明'],
    ['euc-kr-declared.hl7', 'euc-kr', '김', '민준'],
    ['latin2-declared.hl7', 'iso-8859-2', 'Wójcik', 'Łukasz'],
  ].map(([file, encoding, surname, firstName]): Case => ({
    file: file!,
    format: 'hl7',
    encoding,
    orders: 1,
    invalid: 0,
    check: (r) => {
      expect(r.encodingDetected).toBe(true);
      expect(body(r.orders[0]).customer).toMatchObject({ surname, firstName });
    },
  })),
  {
    file: 'utf8-labelled-latin1.hl7',
    format: 'hl7',
    encoding: 'utf-8',
    orders: 1,
    invalid: 0,
    fileProblems: ['hl7.characterSet'],
    check: (r) => {
      expect(body(r.orders[0]).customer!.firstName).toBe('Zoë');
      expect(r.fileProblems[0]).toMatchObject({ severity: 'warning' });
      expect(r.fileProblems[0]!.text).toContain("MSH-18 says '8859/1'");
    },
  },
  {
    file: 'utf32le-bom.csv',
    format: 'csv',
    encoding: 'utf-32le',
    orders: 1,
    invalid: 0,
    check: (r) => expect(body(r.orders[0]).customer!.firstName).toBe('Zoë'),
  },
  // HL7 from the wild (#15, class 6)
  {
    file: 'comment-before-msh.hl7',
    format: 'hl7',
    orders: 2,
    invalid: 0,
    fileProblems: ['hl7.strayContent'],
    check: (r) => {
      expect(r.orders.map((o) => o.clinicOrderId)).toEqual(['W6-1', 'W6-2']);
      expect(r.fileProblems[0]).toMatchObject({ severity: 'warning' });
      expect(r.fileProblems[0]!.text).toContain('Lines 1 and 2 are outside any message');
      expect(r.fileProblems[0]!.text).toContain("'# Exported from EPR on 2025-01-01'");
    },
  },
  {
    file: 'indented-segments.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    fileProblems: ['hl7.strayContent', 'hl7.indented'],
    check: (r) => {
      expect(r.orders[0]!.source.hl7).toMatch(/^MSH\|[^\r]+\rPID\|[^\r]+\rORC\|[^\r]+\rRXE\|[^\r]+$/);
      expect(r.fileProblems.find((p) => p.code === 'hl7.strayContent')!.text).toContain('Lines 1 and 6');
      expect(r.fileProblems.find((p) => p.code === 'hl7.indented')!.text).toContain('first on line 2');
    },
  },
  { file: 'fhs-no-bhs.hl7', format: 'hl7', orders: 2, invalid: 0, fileProblems: [] },
  { file: 'fhs-no-bhs-bts.hl7', format: 'hl7', orders: 3, invalid: 0, fileProblems: [] },
  {
    file: 'cut-after-msh.hl7',
    format: 'hl7',
    orders: 2,
    invalid: 1,
    problems: ['hl7.headerOnly@2:'],
    check: (r) => {
      expect(r.orders[0]!.valid).toBe(true);
      expect(r.orders[1]).toMatchObject({ clinicCode: null, clinicOrderId: null, body: {} });
      expect(r.orders[1]!.problems[0]!.text).toBe(
        'Message 2 (line 5) holds only MSH: no patient (PID), order (ORC) or item (RXE, RXO), so it is no order. The file may be cut short; ask the sender for the whole message.',
      );
    },
  },
  {
    file: 'text-cr-lines.hl7',
    format: 'hl7',
    orders: 2,
    invalid: 0,
    fileProblems: ['hl7.strayContent'],
    problems: ['hl7.strayLine@1:'],
    check: (r) => {
      expect(r.orders[0]!.problems[0]!.text).toContain('Line 3, between segments of message 1');
      expect(r.orders[0]!.problems[0]!.text).toContain("'\\r'");
      expect(r.fileProblems[0]!.text).toBe(
        "Line 6 is outside any message (before its MSH, or text between messages) and was skipped; line 6 reads '\\r'.",
      );
      expect(r.orders.map((o) => o.source.hl7)).toEqual([expect.not.stringContaining('\\r'), expect.any(String)]);
    },
  },
  {
    // Copied out of JSON: still refused (every escape in it is doubled too), but saying what to do.
    file: 'msh-backslash-doubled.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 1,
    fileProblems: ['hl7.textLineBreaks'],
    problems: ['hl7.unreadable@1:'],
    check: (r) => {
      expect(r.orders[0]!.problems[0]!.text).toBe(
        "Message 1 cannot be read: MSH-2 is '^~\\\\&', with its backslash doubled: the file looks copied from source code or JSON, which write a backslash as \\\\ (and a line break as the text \\r). Each \\\\ should be one \\ (MSH-2 is then '^~\\&'): save the message as the sending system wrote it, or ask the sender for the file itself.",
      );
      expect(r.fileProblems[0]!.text).toContain(
        "Segments are separated by the text '\\r' or '\\n' instead of line breaks",
      );
    },
  },
  {
    // Escaped twice: `\\n` is one break, so no segment ends in a stray escape character.
    file: 'text-breaks-doubled.hl7',
    format: 'hl7',
    orders: 1,
    invalid: 0,
    fileProblems: ['hl7.textLineBreaks'],
    check: (r) => {
      expect(r.orders[0]!.source.hl7!.split('\r').map((segment) => segment.slice(0, 3))).toEqual([
        'MSH',
        'PID',
        'ORC',
        'RXE',
      ]);
      expect(r.orders[0]!.source.hl7!).not.toMatch(/\\(\r|$)/);
      expect(r.fileProblems[0]!.text).toContain('(with the backslash doubled: escaped twice)');
    },
  },
  {
    file: 'text-between-segments.hl7',
    format: 'hl7',
    orders: 2,
    invalid: 0,
    fileProblems: ['hl7.strayContent'],
    problems: ['hl7.strayLine@1:'],
    check: (r) => {
      const stray = r.orders[0]!.problems[0]!;
      expect(stray).toMatchObject({ severity: 'warning', message: 1 });
      expect(stray.text).toContain('Line 4, between segments of message 1');
      expect(stray.text).toContain("'(continued from the page before)'");
      expect(r.fileProblems[0]!.text).toContain('Lines 1 and 8 are outside');
    },
  },
];

describe('the import fixture corpus', () => {
  it('has at least 40 files, each with an expected outcome below, and matches what write-fixtures.ts writes', () => {
    const files = readdirSync(FIXTURE_DIR).sort();
    expect(files.length).toBeGreaterThanOrEqual(40);
    const written = fixtureFiles();
    expect(files).toEqual(Object.keys(written).sort());
    for (const file of files)
      expect(readFileSync(join(FIXTURE_DIR, file)).equals(Buffer.from(written[file]!)), file).toBe(true);
    expect(files.filter((file) => !CASES.some((c) => c.file === file))).toEqual([]);
  });

  it.each(CASES.map((c) => [c.name ?? c.file, c] as const))('%s', async (_name, c) => {
    const report = await importFile(join(FIXTURE_DIR, c.file), {
      codeLists: DEFAULT_CODE_LISTS,
      today: TODAY,
      ...(c.format === 'hl7' ? { profile: HL7_PROFILE } : {}),
      ...c.options,
    });
    expect(report.format).toBe(c.format);
    if (c.encoding) expect(report.encoding).toBe(c.encoding);
    if (c.delimiter) expect(report.delimiter).toBe(c.delimiter);
    if (c.headerRow) expect(report.headerRow).toBe(c.headerRow);
    expect(report.orderCount).toBe(c.orders);
    expect(report.orders).toHaveLength(c.orders);
    expect(report.invalidCount).toBe(c.invalid);
    expect(report.orders.filter((o) => !o.valid)).toHaveLength(c.invalid);
    expect(report.fileProblems.map((p) => p.code).sort()).toEqual([...(c.fileProblems ?? [])].sort());
    const problems = report.orders.flatMap((o) => o.problems);
    if (c.problems !== 'see check') {
      expect(problems.map((p) => `${p.code}@${p.row ?? p.message}:${p.field ?? ''}`).sort()).toEqual(
        [...(c.problems ?? [])].sort(),
      );
    }
    for (const p of [...problems, ...report.fileProblems]) {
      expect(p.file).toBe(c.file);
      expect(p.text.length).toBeGreaterThan(10);
    }
    c.check?.(report);
  });
});
