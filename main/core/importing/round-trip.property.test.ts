import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasFormulaStart } from '../../../shared/csv-formula.js';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import type { CreateWithClinicV1Input } from '../../../shared/orders.js';
import { verhoeffCheckDigit } from '../../../shared/snomed.js';
import { DOSAGE_NUMBER_ONLY, ukPostcodeNormalForm } from './uk-rules.js';
import { importFile, writeRde011, writeTemplateCsv } from './index.js';

/**
 * Round trips: a generated valid order written to our CSV template or to RDE^O11 and imported again comes back
 * valid and equal, field for field, including 18-digit dm+d codes, leading zeros and text full of delimiters,
 * quotes, HL7 separators and non-ASCII letters. In CSV, texts and phone numbers may also start with what a
 * spreadsheet would run as a formula (`-0161…`, `+44…`, `=…`, `@…`, TAB, CR, LF, apostrophes before them): the
 * written cells never start with one, and the import gives back the values exactly (shared/csv-formula.ts).
 */

const TODAY = new Date('2025-06-01T00:00:00Z');
let dir: string;
let counter = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-roundtrip-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Characters that stress both formats: CSV delimiters and quotes, HL7 separators and escape, line breaks, and
// letters from the Windows-1252 range so every generated text also fits that encoding.
const CHARS = [...'abcXYZ0179 ,;|\t"^~\\&\'éñ£’-/.', '\n'];
const text = (max = 30) =>
  fc
    .string({ unit: fc.constantFrom(...CHARS), minLength: 1, maxLength: max })
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
/**
 * CSV only: a text that may start with formula characters, apostrophes before them, or look like a negative number.
 * Only Windows-1252 characters, like `text` (the full-width forms are in shared/csv-formula.test.ts).
 */
const FORMULA_PREFIXES = ['=', '+', '-', '@', '\t', '\r', '\n', "'", "''", "'=", "''-", "'\t", '-1', '=SUM(A1)+', '@@'];
const formulaText = (max = 30) =>
  fc.oneof(
    text(max),
    fc
      .constantFrom(...FORMULA_PREFIXES.filter((prefix) => prefix.length < max))
      .chain((prefix) => text(max - prefix.length).map((rest) => `${prefix}${rest}`)),
    fc.constantFrom('-', '+', '=', '@', '-5', '-0.5', '+44', "'", "'-5"),
  );
const digits = (length: number) =>
  fc
    .tuple(
      fc.integer({ min: 1, max: 9 }),
      fc.array(fc.integer({ min: 0, max: 9 }), { minLength: length - 1, maxLength: length - 1 }),
    )
    .map(([first, rest]) => `${first}${rest.join('')}`);

/** A Verhoeff-valid SNOMED concept id of the given length: digits, partition 00 or 10, check digit. */
const dmdCode = (length: number) =>
  fc.tuple(digits(length - 3), fc.constantFrom('00', '10')).map(([body, partition]) => {
    const withPartition = `${body}${partition}`;
    return `${withPartition}${verhoeffCheckDigit(withPartition)}`;
  });
const anyDmdCode = fc.oneof(dmdCode(18), fc.integer({ min: 6, max: 18 }).chain(dmdCode));

const postcode = fc.constantFrom(
  'LS1 4AP',
  'YO1 7HH',
  'SW1A 1AA',
  'M1 1AE',
  'B33 8TH',
  'CR2 6XH',
  'DN55 1PT',
  'EC1A1BB',
  'w1a 0ax',
);
const phone = fc.oneof(
  digits(3).map((d) => `07700 900${d}`),
  digits(3).map((d) => `+44 20 7946 0${d}`),
  digits(3).map((d) => `0113 496 0${d}`),
  // A leading dash is allowed in a UK number and starts a formula in a spreadsheet.
  digits(3).map((d) => `-0161 496 0${d}`),
);
const email = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9.]{0,10}[a-z0-9]$/), fc.constantFrom('example.test', 'nhs.example'))
  .map(([u, d]) => `${u}@${d}`);
const registration = fc.oneof(digits(7), fc.stringMatching(/^\d{2}[A-Z]\d{4}[A-Z]$/));
const isoDate = fc
  .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2024-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

const address = (free: typeof text) =>
  fc.oneof(
    fc.record({
      address1: free(),
      address2: optional(free()),
      city: free(),
      county: optional(free()),
      postCode: postcode,
      countryCode: fc.constant('GBR'),
    }),
    fc.record({
      address1: free(),
      address2: optional(free()),
      city: free(),
      county: optional(free()),
      postCode: free(10),
      countryCode: fc.constantFrom('IRL', 'FRA'),
    }),
  );

interface Shape {
  /** Only fields the default HL7 map carries. */
  hl7: boolean;
}

function orderArb(
  { hl7 }: Shape,
  id: string,
  shared: { paymentType: string; courierCode: string; currencyCode: string },
): fc.Arbitrary<CreateWithClinicV1Input> {
  const extra = <T>(arb: fc.Arbitrary<T>) => (hl7 ? fc.constant(undefined) : optional(arb));
  const free = hl7 ? text : formulaText;
  return fc
    .record({
      customer: fc.record({
        clinicAccountNumber: extra(fc.integer({ min: 0, max: 999_999 })),
        title: fc.constantFrom(...DEFAULT_CODE_LISTS.titles),
        firstName: free(),
        surname: free(),
        dateOfBirth: isoDate,
        gender: fc.constantFrom(...DEFAULT_CODE_LISTS.genders),
        telephone: optional(phone),
        email: optional(email),
      }),
      homeAddress: address(free),
      deliveryAddress: address(free),
      prescription: fc.record({
        clinicOrderId: fc
          .oneof(
            free(20),
            digits(12).map((d) => `00${d}`),
          )
          .map((s) => `${s.replace(/\s/g, '')}-${id}`),
        clinicOrderValue: extra(fc.integer({ min: 0, max: 10_000_000 }).map((n) => n / 100)),
        paymentType: fc.constant(shared.paymentType),
        repeatsAllowed: optional(fc.integer({ min: 0, max: 52 })),
        courierCode: fc.constant(shared.courierCode),
        currencyCode: fc.constant(shared.currencyCode),
      }),
      // Two identical items are two identical CSV rows, which the import warns about (csv.repeatedRow).
      prescribedItems: fc.uniqueArray(
        fc.record({
          productId: extra(fc.integer({ min: 0, max: 1_000_000 })),
          dmdCode: anyDmdCode,
          pack: extra(fc.integer({ min: 1, max: 1000 })),
          medication: free(60),
          // A number alone is no instruction (dosage.numberOnly).
          dosageInstructions: free(80).filter((d) => !DOSAGE_NUMBER_ONLY.test(d.trim())),
          quantity: fc.integer({ min: 1, max: 10_000 }),
        }),
        { minLength: 1, maxLength: 4, selector: (item) => JSON.stringify(item) },
      ),
      prescribingDoctor: fc.record({ registrationNumber: registration, prescriberName: free() }),
      clinicInformation: fc.record({
        clinicCode: fc.constantFrom('CLINIC-A', '007', 'Clinic B'),
        name: free(),
        address1: free(),
        address2: optional(free()),
        address3: optional(free()),
        address4: optional(free()),
        postcode: postcode,
        countryCode: fc.constant('GBR'),
        contactNumber: optional(phone),
        contactEmail: optional(email),
        prescriberFeeTypeId: extra(fc.integer({ min: 0, max: 9 })),
        prescriberFee: extra(fc.integer({ min: 0, max: 100_000 }).map((n) => n / 100)),
      }),
      affiliateId: extra(free(10)),
    })
    .map((order) => JSON.parse(JSON.stringify(order)) as CreateWithClinicV1Input);
}

const sharedCodes = fc.record({
  paymentType: fc.constantFrom(...DEFAULT_CODE_LISTS.paymentTypes),
  courierCode: fc.constantFrom(...DEFAULT_CODE_LISTS.courierCodes),
  currencyCode: fc.constantFrom(...DEFAULT_CODE_LISTS.currencyCodes),
});
const ordersArb = (shape: Shape) =>
  sharedCodes.chain((shared) =>
    fc.tuple(
      fc.constant(shared),
      fc.tuple(...[1, 2, 3].map((n) => orderArb(shape, String(n), shared))),
      fc.integer({ min: 1, max: 3 }),
    ),
  );

const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** An order as imported: a UK postcode written `EC1A1BB` or `w1a 0ax` is sent as `EC1A 1BB`, `W1A 0AX`. */
function asSent(order: CreateWithClinicV1Input): unknown {
  const sent = plain(order) as CreateWithClinicV1Input;
  for (const address of [sent.homeAddress, sent.deliveryAddress]) {
    if (address.countryCode === 'GBR') address.postCode = ukPostcodeNormalForm(address.postCode) ?? address.postCode;
  }
  const clinic = sent.clinicInformation;
  if (clinic.countryCode === 'GBR') clinic.postcode = ukPostcodeNormalForm(clinic.postcode) ?? clinic.postcode;
  return sent;
}

/** The dotted paths of a body's texts holding a line break, sorted. */
function lineBreakPaths(value: unknown, path = ''): string[] {
  if (typeof value === 'string') return /[\r\n]/.test(value) ? [path] : [];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value)
    .flatMap(([key, inner]) => lineBreakPaths(inner, path ? `${path}.${key}` : key))
    .sort();
}

describe('round trips', () => {
  it('CSV template: write, re-import in any encoding, get the same valid orders', async () => {
    await fc.assert(
      fc.asyncProperty(
        ordersArb({ hl7: false }),
        fc.constantFrom('utf-8', 'utf-8-bom', 'utf-16le', 'utf-16be', 'windows-1252'),
        async ([, all, count], encoding) => {
          const orders = all.slice(0, count);
          const csv = writeTemplateCsv(orders);
          // As a spreadsheet reads it: no cell starts with a formula character.
          const cells = Papa.parse<string[]>(csv, { skipEmptyLines: true }).data.flat();
          expect(cells.filter(hasFormulaStart)).toEqual([]);
          const bytes =
            encoding === 'utf-8-bom'
              ? Buffer.from(`\ufeff${csv}`, 'utf8')
              : encoding === 'utf-16le' || encoding === 'utf-16be'
                ? iconv.encode(csv, encoding, { addBOM: true })
                : iconv.encode(csv, encoding);
          const path = join(dir, `orders-${(counter += 1)}.csv`);
          await writeFile(path, bytes);
          const report = await importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: TODAY });
          expect(report.fileProblems).toEqual([]);
          // A value holding a line break is read back exactly, with its warning (csv.lineBreakInCell) and no other.
          expect(report.orders.map((o) => o.problems.map((p) => `${p.severity} ${p.code} ${p.field}`).sort())).toEqual(
            orders.map((order) => lineBreakPaths(order).map((path) => `warning csv.lineBreakInCell ${path}`)),
          );
          expect(report.orders.map((o) => plain(o.body))).toEqual(orders.map(asSent));
        },
      ),
      { numRuns: Number(process.env.ROUND_TRIP_RUNS ?? 60) },
    );
  });

  it('HL7 RDE^O11: write, re-import under any framing, get the same valid orders', async () => {
    await fc.assert(
      fc.asyncProperty(
        ordersArb({ hl7: true }),
        fc.constantFrom<'\r' | '\n' | '\r\n'>('\r', '\n', '\r\n'),
        fc.constantFrom('plain', 'mllp', 'batch'),
        async ([shared, all, count], lineEnding, framing) => {
          const orders = all.slice(0, count);
          const messages = orders.map((order, i) =>
            writeRde011(order, { lineEnding, controlId: `M${i}`, timestamp: '20250101120000' }),
          );
          const file =
            framing === 'mllp'
              ? messages.map((m) => `\x0b${m}${lineEnding}\x1c\r`).join('')
              : framing === 'batch'
                ? ['FHS|^~\\&|RXB', 'BHS|^~\\&|RXB', ...messages, `BTS|${messages.length}`, 'FTS|1'].join(lineEnding)
                : messages.join(lineEnding);
          const path = join(dir, `orders-${(counter += 1)}.hl7`);
          await writeFile(path, file, 'utf8');
          const report = await importFile(path, {
            codeLists: DEFAULT_CODE_LISTS,
            today: TODAY,
            profile: { name: 'hl7', columns: {}, constants: shared, valueMaps: {} },
          });
          expect(report.fileProblems).toEqual([]);
          // A value holding a line break outside a dosage (FT text) is read back exactly, with hl7.lineBreakInValue.
          expect(report.orders.map((o) => o.problems.map((p) => `${p.severity} ${p.code} ${p.field}`).sort())).toEqual(
            orders.map((order) =>
              lineBreakPaths(order)
                .filter((path) => !path.endsWith('.dosageInstructions'))
                .map((path) => `warning hl7.lineBreakInValue ${path}`),
            ),
          );
          expect(report.orders.map((o) => plain(o.body))).toEqual(orders.map(asSent));
          expect(report.orders.map((o) => o.source.hl7)).toEqual(messages.map((m) => m.split(lineEnding).join('\r')));
        },
      ),
      { numRuns: Number(process.env.ROUND_TRIP_RUNS ?? 60) },
    );
  });
});
