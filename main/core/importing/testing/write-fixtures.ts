import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import iconv from 'iconv-lite';
import type { CreateWithClinicV1Input } from '../../../../shared/orders.js';
import { writeRde011 } from '../rde-writer.js';
import { writeTemplateCsv } from '../template-csv.js';

/**
 * Writes the importer's fixture corpus into test/fixtures/import/ (committed; re-run after changing it:
 * `npx tsx main/core/importing/testing/write-fixtures.ts`). Each file's expected outcome is asserted in
 * fixtures.test.ts. All patient data is made up: example.test addresses, Ofcom drama numbers (07700 900xxx).
 */

export const FIXTURE_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../../test/fixtures/import');

/** Valid dm+d codes: 17 and 18 digits (long format, partition 10) and a 9-digit short one. */
export const DMD = {
  paracetamol: '42109611000001109',
  ibuprofen: '10362601000001103',
  long18: '123456781000001105',
  short: '322236009',
} as const;

type Order = CreateWithClinicV1Input;

export function exampleOrder(id: string, overrides: (order: Order) => void = () => {}): Order {
  const home = {
    address1: '1 High Street',
    address2: 'Flat 2',
    city: 'Leeds',
    county: 'West Yorkshire',
    postCode: 'LS1 4AP',
    countryCode: 'GBR',
  };
  const order: Order = {
    customer: {
      title: 'Ms',
      firstName: 'Alex',
      surname: 'Example',
      dateOfBirth: '1980-01-15',
      gender: 'Female',
      telephone: '07700900123',
      email: 'alex@example.test',
    },
    homeAddress: home,
    deliveryAddress: { ...home },
    prescription: {
      clinicOrderId: id,
      paymentType: 'Account',
      courierCode: 'RMT24',
      currencyCode: 'GBP',
      repeatsAllowed: 0,
    },
    prescribedItems: [
      {
        dmdCode: DMD.paracetamol,
        pack: 1,
        medication: 'Paracetamol 500mg tablets',
        dosageInstructions: 'Two tablets up to four times a day',
        quantity: 32,
      },
    ],
    prescribingDoctor: { registrationNumber: '7123456', prescriberName: 'Dr Jane Smith' },
    clinicInformation: {
      clinicCode: 'CLINIC-A',
      name: 'Example Clinic',
      address1: '10 Market Street',
      postcode: 'YO1 7HH',
      countryCode: 'GBR',
      contactNumber: '01904 000000',
      contactEmail: 'clinic@example.test',
    },
  };
  overrides(order);
  return order;
}

/** The three orders of template-example.csv: two items with 17- and 18-digit codes, a separate delivery address. */
export function templateExampleOrders(): Order[] {
  return [
    exampleOrder('ORD-1001', (o) => {
      o.prescribedItems.push({
        dmdCode: DMD.long18,
        pack: 2,
        medication: 'Ibuprofen 200mg tablets',
        dosageInstructions: 'One tablet three times a day with food',
        quantity: 24,
      });
    }),
    exampleOrder('ORD-1002', (o) => {
      o.customer = {
        ...o.customer,
        title: 'Mr',
        firstName: 'Sam',
        surname: 'Sample',
        dateOfBirth: '1975-06-30',
        gender: 'Male',
        telephone: '07700900456',
        email: 'sam@example.test',
      };
      o.deliveryAddress = { address1: '3 Test Lane', city: 'York', postCode: 'YO1 7HH', countryCode: 'GBR' };
      o.prescription.courierCode = 'RMT48';
      o.prescription.repeatsAllowed = 2;
      o.prescription.clinicOrderValue = 24.5;
      o.prescribedItems = [
        {
          dmdCode: DMD.ibuprofen,
          pack: 1,
          medication: 'Ibuprofen 400mg tablets',
          dosageInstructions: 'One tablet when required',
          quantity: 12,
        },
      ];
    }),
    exampleOrder('ORD-1003', (o) => {
      o.clinicInformation.clinicCode = 'CLINIC-B';
      o.customer = { ...o.customer, firstName: 'Jo', surname: 'Bloggs', dateOfBirth: '1992-11-03' };
      o.prescribedItems = [
        {
          dmdCode: DMD.short,
          medication: 'Paracetamol 500mg capsules',
          dosageInstructions: 'Two capsules every six hours',
          quantity: 16,
        },
      ];
    }),
  ];
}

const csv = (orders: Order[]) => writeTemplateCsv(orders);
/** Replaces one cell of a template CSV: row 1 is the first data row. */
function withCell(text: string, row: number, column: string, value: string): string {
  const lines = text.split('\r\n');
  const header = lines[0]!.split(',');
  const index = header.indexOf(column);
  if (index < 0) throw new Error(`no column ${column}`);
  const cells = lines[row]!.split(',');
  cells[index] = value;
  lines[row] = cells.join(',');
  return lines.join('\r\n');
}

/** A template CSV with one more column at the end: `header`, and `value(row)` in each data row (1 = first). */
function withColumn(text: string, header: string, value: (row: number) => string): string {
  return text
    .trimEnd()
    .split('\r\n')
    .map((line, row) => `${line},${row === 0 ? header : value(row)}`)
    .join('\r\n')
    .concat('\r\n');
}

const OTHER_LAYOUT = [
  'Order No,Clinic,Title,Forename,Patient Surname,DOB,Sex,Mobile,Email,Address 1,Town,Post Code,Delivery Method,Drug,DMD,Directions,Qty,GMC,Prescriber',
  'A-1,CLINIC-O,Mrs,Ann,Other,25/12/1961,F,07700 900111,ann@example.test,4 Low Road,Hull,HU1 1AA,Royal Mail 24,Paracetamol 500mg tablets,42109611000001109,Two tablets four times a day,32,7654321,Dr Ola Other',
  'A-2,CLINIC-O,Mr,Ben,Other,03/04/1980,M,07700 900222,ben@example.test,5 Low Road,Hull,HU1 1AB,Royal Mail 48,Ibuprofen 400mg tablets,10362601000001103,One tablet when required,12,7654321,Dr Ola Other',
].join('\r\n');

function hl7(order: Order, options: Parameters<typeof writeRde011>[1] = {}): string {
  return writeRde011(order, {
    timestamp: '20250101120000',
    controlId: `MSG-${String(order.prescription.clinicOrderId)}`,
    ...options,
  });
}

/** `message` with field `field` of its `occurrence`-th `name` segment set to `raw` (HL7 text, separators and all). */
function setField(message: string, name: string, field: number, raw: string, occurrence = 1): string {
  let seen = 0;
  return message
    .split('\r')
    .map((segment) => {
      if (!segment.startsWith(`${name}|`) || (seen += 1) !== occurrence) return segment;
      const fields = segment.split('|');
      while (fields.length <= field) fields.push('');
      fields[field] = raw;
      return fields.join('|');
    })
    .join('\r');
}

/** MSH-18 (character set) added to every MSH of `message`. */
const withMsh18 = (message: string, value: string) => message.replaceAll('|P|2.5', `|P|2.5||||||${value}`);

/** `text` in an encoding, with each placeholder replaced by raw bytes (for ISO-2022-JP, which iconv-lite cannot write). */
function withBytes(text: string, replacements: Record<string, number[]>): Buffer {
  const pieces: Buffer[] = [];
  let rest = text;
  for (;;) {
    const next = Object.keys(replacements)
      .map((key) => [key, rest.indexOf(key)] as const)
      .filter(([, at]) => at >= 0)
      .sort((a, b) => a[1] - b[1])[0];
    if (!next) break;
    pieces.push(Buffer.from(rest.slice(0, next[1]), 'latin1'), Buffer.from(replacements[next[0]]!));
    rest = rest.slice(next[1] + next[0].length);
  }
  return Buffer.concat([...pieces, Buffer.from(rest, 'latin1')]);
}

/** 山田 and 太郎 in ISO-2022-JP: JIS X 0208 switched in by ESC $ B and back to ASCII by ESC ( B. */
const JIS = {
  YAMADA: [0x1b, 0x24, 0x42, 0x3b, 0x33, 0x45, 0x44, 0x1b, 0x28, 0x42],
  TARO: [0x1b, 0x24, 0x42, 0x42, 0x40, 0x4f, 0x3a, 0x1b, 0x28, 0x42],
};

/** A Japanese patient (names, town, dosage) for the encoding fixtures. */
const japanese = (o: Order) => {
  o.customer.surname = '山田';
  o.customer.firstName = '太郎';
  o.homeAddress.city = '東京';
  o.deliveryAddress = { ...o.homeAddress };
  o.prescribedItems[0]!.dosageInstructions = '1日3回 食後に服用';
};

/** `bytes` followed by zero bytes up to the next multiple of `block`. */
const padded = (bytes: Buffer, block: number) => Buffer.concat([bytes, Buffer.alloc(block - (bytes.length % block))]);

const hl7Order = (id: string, overrides?: (order: Order) => void) =>
  exampleOrder(id, (o) => {
    o.deliveryAddress = { ...o.homeAddress };
    overrides?.(o);
  });

export function fixtureFiles(): Record<string, string | Buffer> {
  const example = csv(templateExampleOrders());
  const one = csv([exampleOrder('ORD-2001')]);
  const accented = csv([
    exampleOrder('ORD-3001', (o) => {
      o.customer.firstName = 'Zoë';
      o.customer.surname = 'Brontë-Fenwick';
      o.homeAddress.address1 = 'St Mary’s Road';
      o.deliveryAddress = { ...o.homeAddress };
      o.prescribedItems[0]!.dosageInstructions = '“Two” tablets; cost £4.50 (café dose)';
    }),
  ]);
  const twoRowOrder = csv([
    exampleOrder('ORD-4001', (o) => {
      o.prescribedItems.push({
        dmdCode: DMD.ibuprofen,
        pack: 1,
        medication: 'Ibuprofen 400mg tablets',
        dosageInstructions: 'One tablet',
        quantity: 12,
      });
    }),
  ]);
  const [head, rowA1, rowA2] = twoRowOrder.trimEnd().split('\r\n');
  const rowB = one.trimEnd().split('\r\n')[1]!;
  const lines = (text: string) => text.trimEnd().split('\r\n');

  // A record just past the 64 KB sample holds a Windows-1252 byte: the file is 1252 though its start is ASCII.
  const filler = Array.from({ length: 220 }, (_, i) => lines(csv([exampleOrder(`ORD-F${i}`)]))[1]!);
  const late1252 = Buffer.concat([
    Buffer.from([lines(example)[0], ...filler].join('\r\n') + '\r\n', 'latin1'),
    iconv.encode(
      lines(csv([exampleOrder('ORD-LATE', (o) => (o.customer.firstName = 'Renée'))]))[1]! + '\r\n',
      'windows-1252',
    ),
  ]);

  const files: Record<string, string | Buffer> = {
    // Encodings
    'template-example.csv': example,
    'utf8-bom.csv': `\ufeff${example}`,
    'utf16le-bom.csv': Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(accented, 'utf-16le')]),
    'utf16be-bom.csv': Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(accented, 'utf-16be')]),
    'utf16le-no-bom.csv': iconv.encode(accented, 'utf-16le'),
    'windows-1252.csv': iconv.encode(accented, 'windows-1252'),
    'late-windows-1252.csv': late1252,
    // Delimiters and layout
    'semicolon.csv': example.replaceAll(',', ';'),
    // A semicolon file as a comma-decimal locale's spreadsheet writes it (#15): 24,50 is 24.50; 1,250 could be either.
    'decimal-comma.csv': withCell(
      withCell(withCell(example, 3, 'clinicOrderValue', '24,50'), 1, 'clinicPrescriberFee', '1,250'),
      4,
      'clinicOrderValue',
      '1.234,56',
    )
      .replaceAll(',', ';')
      .replace('24;50', '24,50')
      .replace('1;250', '1,250')
      .replace('1.234;56', '1.234,56'),
    // In a comma file a decimal comma needs quotes, and is not read.
    'decimal-comma-quoted.csv': withCell(withCell(one, 1, 'quantity', '"1,000"'), 1, 'clinicOrderValue', '"24,50"'),
    'tab.tsv': example.replaceAll(',', '\t'),
    // A space between the delimiter and a quoted cell (a writer joining cells with ", "): still one quoted cell.
    'space-before-quote.csv': withCell(
      withCell(example, 1, 'dosageInstructions', ' "Two tablets, with water,\r\nup to four times a day"'),
      3,
      'medication',
      '  "Paracetamol 500mg, caplets"',
    ),
    'pipe.txt': example.replaceAll(',', '|'),
    'title-rows.csv': `Prescription export,Example Clinic,"generated 1 June 2025, 09:00"\r\nConfidential\r\n\r\n${example}`,
    'quoted-fields.csv': withCell(
      withCell(example, 1, 'dosageInstructions', '"Two tablets, with water,\r\nup to ""four"" times a day"'),
      3,
      'medication',
      '"Paracetamol 500mg ""caplets"""',
    ),
    'blank-lines.csv': `${lines(example)[0]}\r\n\r\n${lines(example)[1]}\r\n   \r\n,,,\r\n${lines(example).slice(2).join('\r\n')}\r\n\r\n\r\n`,
    'mixed-line-endings.csv': `${lines(example)[0]}\n${lines(example)[1]}\r\n${lines(example)[2]}\r${lines(example).slice(3).join('\n')}\n`,
    'non-contiguous.csv': [head, rowA1, rowB, rowA2].join('\r\n') + '\r\n',
    // A row copied twice (the order would carry its item twice), and a second item that differs: only the copy warns.
    'repeated-row.csv': [head, rowA1, rowA1, rowA2].join('\r\n') + '\r\n',
    'rows-disagree.csv': [head, rowA1, rowA2!.replace('Example', 'Exampel')].join('\r\n') + '\r\n',
    // Spaces that look like spaces but are not (#15): a no-break space in a postcode on one row of an order and a plain
    // one on the other, a zero-width space after an order id, a figure space in a phone number, a narrow no-break space
    // and a byte order mark inside text.
    'unusual-spaces.csv':
      [
        head,
        rowA1!.replaceAll('LS1 4AP', 'LS1\u00a04AP'),
        rowA2!.replace('ORD-4001', 'ORD-4001\u200b'),
        rowB
          .replace('07700900123', '07700\u2007900123')
          .replace('Paracetamol 500mg', 'Paracetamol\u202f500mg')
          .replace('Two tablets up', 'Two tablets\ufeff up'),
      ].join('\r\n') + '\r\n',
    // Summary lines an export puts among and after its rows (#15): a subtotal with two cells, a count, a footer.
    'summary-rows.csv': [
      ...lines(example).slice(0, 3),
      `,CLINIC-A subtotal${',,'.repeat(12)},2`,
      ...lines(example).slice(3),
      'Total: 3 orders',
      `End of report${','.repeat(46)}`,
      '',
    ].join('\r\n'),
    // Two exports joined: a page footer of three cells, the header again, a closing line of four cells.
    'joined-exports.csv': [
      ...lines(example).slice(0, 3),
      'Printed 1 June 2025,by EPR,page 1',
      lines(example)[0],
      ...lines(example).slice(3),
      'Orders: 3,Items: 4,Value: 24.50,End',
      '',
    ].join('\r\n'),
    'ragged-rows.csv': `${lines(one)[0]}\r\n${lines(one)[1]},surplus,cells\r\n`,
    'malformed-quotes.csv': `${lines(example)[0]}\r\n${withCell(example, 1, 'surname', '"Exa"mple').split('\r\n')[1]}\r\n${lines(example).slice(2).join('\r\n')}\r\n`,
    'other-layout.csv': OTHER_LAYOUT,
    // Headers with a unit, format or example in brackets; the one with "(delivery)" is another field's.
    'header-notes.csv': OTHER_LAYOUT.replace(
      'DOB,Sex,Mobile,Email,Address 1,Town,Post Code,Delivery Method,Drug,DMD,Directions,Qty,',
      'DOB (dd/mm/yyyy),Sex,Mobile [e.g. 07700 900123],Email,Address 1,Town,Post Code (delivery),Delivery Method,Drug,DMD (SNOMED CT),Directions,Qty (tablets),',
    ),
    // As another clinic system writes it: the `+44` cell not neutralised (the app's own writer would add `'`).
    'leading-zeros.csv': withCell(
      csv([
        exampleOrder('000123', (o) => {
          o.clinicInformation.clinicCode = '007';
          o.customer.telephone = '01632 960000';
          o.homeAddress.postCode = 'BS1 4ST';
          o.deliveryAddress = { ...o.homeAddress };
          o.prescribedItems[0]!.dmdCode = DMD.long18;
          o.customer.clinicAccountNumber = 1234;
          o.affiliateId = '00042';
        }),
      ]),
      1,
      'clinicContactNumber',
      '+44 (0)20 7946 0000',
    ),
    // Formula cells (shared/csv-formula.ts): some neutralised with a leading apostrophe, as the OWASP guidance and
    // this app's own exports write them, some not; the apostrophe before a formula character is taken off.
    'formula-cells.csv': [
      ['telephone', `"'+44 7700 900123"`],
      ['homeAddress1', `'1 High Street`],
      ['homeAddress2', '-Flat 2'],
      ['medication', `"'@Paracetamol 500mg tablets"`],
      ['dosageInstructions', `"''=Two tablets"`],
      ['clinicAddress2', `"'\tSuite 4"`],
    ].reduce((text, [column, value]) => withCell(text, 1, column!, value!), one),
    // Exports made for Excel wrap codes as ="…" (a formula whose result is the text) to keep leading zeros; in CSV
    // the cell is written bare or quoted with its quotes doubled. A guarded cell ('="x") is the text ="x".
    'excel-text-formula.csv': [
      ['clinicOrderId', '="000123"'],
      ['telephone', '="07700900123"'],
      ['dmdCode', '"=""42109611000001109"""'],
      ['dosageInstructions', `"'=""Two"" tablets"`],
    ].reduce((text, [column, value]) => withCell(text, 1, column!, value!), one),
    // Files that are not orders at all
    'empty.csv': '',
    'whitespace-only.csv': '\r\n  \r\n\t\r\n',
    'header-only.csv': lines(example)[0]! + '\r\n',
    'no-header.csv': 'alpha,beta,gamma\r\n1,2,3\r\n4,5,6\r\n',
    'binary.dat': Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 7919 + 13) % 256)),
    // Padded with zero bytes to a block size, as some systems write files (#15): the padding is not binary data.
    'nul-padded.csv': padded(Buffer.from(example), 4096),
    'nul-padded.hl7': padded(Buffer.from(hl7(hl7Order('Z-1'))), 2048),
    'nul-padded-utf16le.csv': padded(
      Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(accented, 'utf-16le')]),
      4096,
    ),
    // DOS's end-of-file mark (0x1A, Ctrl-Z) after the text, alone or before zero padding.
    'ctrl-z-end.csv': Buffer.concat([Buffer.from(example), Buffer.from([0x1a])]),
    'ctrl-z-padded.hl7': padded(Buffer.concat([Buffer.from(hl7(hl7Order('Z-2'))), Buffer.from([0x1a])]), 512),
    // A zero byte inside the text as well: binary, padding or not.
    'nul-inside.csv': padded(Buffer.from(example.replace('Leeds', 'Le\u0000eds')), 4096),
    'workbook.xlsx': Buffer.concat([
      Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]),
      Buffer.from('[Content_Types].xml', 'latin1'),
      Buffer.alloc(64),
    ]),
    // Invalid values, one kind per file
    'bad-dmd-check-digit.csv': withCell(one, 1, 'dmdCode', '42109611000001108'),
    'bad-dmd-partition.csv': withCell(one, 1, 'dmdCode', '1234567013'),
    'bad-dmd-length.csv': withCell(one, 1, 'dmdCode', '12345'),
    'dmd-excel-mangled.csv': withCell(one, 1, 'dmdCode', '4.21096E+16'),
    'bad-postcode.csv': withCell(withCell(one, 1, 'homePostCode', 'LS1 XYZ'), 1, 'deliveryPostCode', 'LS1 XYZ'),
    'bad-country.csv': withCell(one, 1, 'clinicCountryCode', 'UK'),
    'dob-future.csv': withCell(one, 1, 'dateOfBirth', '2031-01-01'),
    'dob-implausible.csv': withCell(one, 1, 'dateOfBirth', '1850-01-01'),
    'dob-not-a-date.csv': withCell(one, 1, 'dateOfBirth', '1980-02-30'),
    // Dates of birth as other exports write them: a JavaScript toISOString() of a BST midnight, ISO's basic form,
    // a database's date-time, an offset date-time in the morning.
    'dob-date-times.csv': csv(
      ['1980-06-14T23:00:00.000Z', '19800115', '1980-01-15 00:00:00.000', '1980-01-15T09:30:00+01:00'].map((dob, i) =>
        exampleOrder(`ORD-DT${i + 1}`, (o) => (o.customer.dateOfBirth = dob)),
      ),
    ),
    'bad-email.csv': withCell(one, 1, 'email', 'alex.example.test'),
    'bad-phone.csv': withCell(one, 1, 'telephone', '12345'),
    // Phone numbers a spreadsheet stored as numbers: the leading 0 dropped, a long one rounded, 44 without its +.
    'phones-as-numbers.csv': [
      [1, 'telephone', '7700900123'],
      [2, 'clinicContactNumber', '1904000000'],
      [3, 'telephone', '4.47701E+11'],
      [4, 'telephone', '447700900123'],
    ].reduce(
      (text, [row, column, value]) => withCell(text, row as number, column as string, value as string),
      csv(Array.from({ length: 4 }, (_, i) => exampleOrder(`PN-${i + 1}`))),
    ),
    'bad-registration.csv': withCell(one, 1, 'prescriberRegistrationNumber', 'GMC 123'),
    'bad-quantities.csv': csv([
      exampleOrder('Q-ZERO', (o) => (o.prescribedItems[0]!.quantity = 0)),
      exampleOrder('Q-HUGE', (o) => (o.prescribedItems[0]!.quantity = 50000)),
    ])
      .concat(lines(withCell(withCell(one, 1, 'quantity', '2.5'), 1, 'clinicOrderId', 'Q-FRACTION'))[1]! + '\r\n')
      .concat(lines(withCell(withCell(one, 1, 'pack', 'two'), 1, 'clinicOrderId', 'Q-WORDS'))[1]! + '\r\n'),
    // Whole numbers written with zero decimals (HL7 NM, database exports): 32.0 is 32; 2.50 is still not whole.
    'whole-zero-decimals.csv': [
      ['quantity', '32.0'],
      ['pack', '2.000'],
      ['repeatsAllowed', '1.00'],
      ['quantity', '2.50'],
    ].reduce(
      (text, [column, value], i) => withCell(text, i + 1, column!, value!),
      csv(Array.from({ length: 4 }, (_, i) => exampleOrder(`WZ-${i + 1}`))),
    ),
    'whole-zero-decimals.hl7': setField(setField(hl7(hl7Order('WZ-9')), 'RXE', 10, '30.000'), 'RXE', 12, '2.0'),
    // A database export (#15): SQL Server writes NULL, MySQL \N for a cell with no value; ="NULL" is Excel's text.
    'null-cells.csv': [
      [1, 'homeAddress2', 'NULL'],
      [1, 'email', '\\N'],
      [2, 'pack', 'null'],
      [2, 'clinicAddress2', '="NULL"'],
      [3, 'surname', 'NULL'],
    ].reduce(
      (text, [row, column, value]) => withCell(text, row as number, column as string, value as string),
      csv(Array.from({ length: 3 }, (_, i) => exampleOrder(`NL-${i + 1}`))),
    ),
    'unknown-codes.csv': withCell(
      withCell(withCell(one, 1, 'courierCode', 'FEDEX'), 1, 'title', 'Sir'),
      1,
      'gender',
      'X',
    ),
    // Sex as a number (the NHS Data Dictionary's person gender codes, ISO 5218): 1 male, 2 female, 0 not known, 9
    // not specified.
    'gender-numeric.csv': csv(
      ['1', '2', '0', '9'].map((code, i) => exampleOrder(`G2-${i}`, (o) => (o.customer.gender = code))),
    ),
    'gender-numeric.hl7': setField(hl7(hl7Order('G2-9')), 'PID', 8, '2'),
    'missing-required.csv': withCell(withCell(one, 1, 'surname', ''), 1, 'medication', ''),
    // The same meanings written out (the NHS Data Dictionary's Indeterminate, HL7's display names), in any case.
    'gender-words.csv': csv(
      ['Indeterminate', 'not known', 'Not Specified', 'AMBIGUOUS', 'Not applicable'].map((sex, i) =>
        exampleOrder(`GW-${i}`, (o) => (o.customer.gender = sex)),
      ),
    ),
    // Amounts written with their currency (#15): the order's own (GBP) is read as the number; another is refused.
    'amounts-currency.csv': [
      ['clinicOrderValue', '£12.50'],
      ['clinicOrderValue', 'GBP 12.50'],
      ['clinicOrderValue', '12.50 gbp'],
      ['clinicOrderValue', '$4'],
      ['clinicPrescriberFee', '€3.20'],
      ['clinicPrescriberFee', '-£2'],
    ].reduce(
      (text, [column, value], i) => withCell(text, i + 1, column!, value!),
      csv(Array.from({ length: 6 }, (_, i) => exampleOrder(`AM-${i + 1}`))),
    ),
    // A comma-decimal locale's spreadsheet, in euros: €3,20 and 3,20 € are 3.20 EUR; £1 is not euros.
    'amounts-currency-semicolon.csv': [['€3.20'], ['3.20 €'], ['£1']]
      .reduce(
        (text, [value], i) => withCell(text, i + 1, 'clinicOrderValue', value!),
        csv(
          Array.from({ length: 3 }, (_, i) =>
            exampleOrder(`AE-${i + 1}`, (o) => (o.prescription.currencyCode = 'EUR')),
          ),
        ),
      )
      .replaceAll(',', ';')
      .replaceAll('3.20', '3,20'),
    // HL7 money (MO: quantity^denomination; a composite price CP holds it as quantity&denomination) in a Z segment a
    // profile maps: 12.50^USD is not the order's GBP.
    'amount-mo.hl7':
      [
        ['12.50^GBP', '4.00&GBP^UP'],
        ['12.50^USD', ''],
        ['£7.25', '4.00&EUR^UP'],
      ]
        .map(([value, fee], i) => `${hl7(hl7Order(`MO-${i + 1}`))}\rZPY|${value}|${fee}`)
        .join('\r') + '\r',
    // HL7 table 0001 (administrative sex) in PID-8 and in a CSV: A (ambiguous) and N (not applicable) have no gender
    // of their own in an order; M, F, O and U have.
    'gender-table-0001.hl7':
      ['A', 'N', 'O', 'U', 'M', 'f'].map((code, i) => setField(hl7(hl7Order(`G1-${i}`)), 'PID', 8, code)).join('\r') +
      '\r',
    'gender-table-0001.csv': csv(
      ['A', 'N', 'O', 'U', 'M', 'f'].map((code, i) => exampleOrder(`G1-${i}`, (o) => (o.customer.gender = code))),
    ),
    // HL7 v2
    'rde-single.hl7': hl7(hl7Order('H-1')),
    'rde-lf.hl7': hl7(hl7Order('H-2'), { lineEnding: '\n' }) + '\n',
    'rde-crlf.hl7': hl7(hl7Order('H-3'), { lineEnding: '\r\n' }) + '\r\n',
    'rde-many.hl7': [hl7(hl7Order('H-4')), hl7(hl7Order('H-5')), hl7(hl7Order('H-6'))].join('\r') + '\r',
    'batch.hl7':
      [
        'FHS|^~\\&|RXBATCH',
        'BHS|^~\\&|RXBATCH',
        hl7(hl7Order('B-1')),
        hl7(hl7Order('B-2')),
        hl7(hl7Order('B-3')),
        'BTS|3',
        'FTS|1',
      ].join('\r') + '\r',
    'batch-count-mismatch.hl7':
      ['FHS|^~\\&|RXBATCH', 'BHS|^~\\&|RXBATCH', hl7(hl7Order('B-4')), hl7(hl7Order('B-5')), 'BTS|3', 'FTS|1'].join(
        '\r',
      ) + '\r',
    'batch-truncated.hl7':
      ['FHS|^~\\&|RXBATCH', 'BHS|^~\\&|RXBATCH', hl7(hl7Order('B-6')), hl7(hl7Order('B-7'))].join('\r') + '\r',
    'mllp.hl7': Buffer.concat(
      [hl7(hl7Order('M-1')), hl7(hl7Order('M-2'))].flatMap((m) => [
        Buffer.from([0x0b]),
        Buffer.from(`${m}\r`),
        Buffer.from([0x1c, 0x0d]),
      ]),
    ),
    'custom-delimiters.hl7': hl7(
      hl7Order('D-1', (o) => (o.customer.surname = 'Smith#Jones')),
      {
        delimiters: { field: '#', component: '@', repetition: '*', escape: '$', subcomponent: '%' },
      },
    ),
    'escapes.hl7': hl7(
      hl7Order('E-1', (o) => {
        o.customer.surname = "O'Brien & Sons";
        o.prescribedItems[0]!.medication = 'Co-codamol 30/500 | caplets ^ strong ~ 100 \\ pack';
        o.prescribedItems[0]!.dosageInstructions = 'Two caplets\nevery six hours';
      }),
    ).replace('every', '\\XC2A3\\5 every'),
    // HL7 v2 chapter 2's other escapes: a locally defined one (left out, warned), highlighting (text kept), switches to
    // ASCII (nothing to change) and to JIS X 0208 (the 7-bit JIS text decoded).
    'escapes-local-charset.hl7': hl7(hl7Order('EL-1'))
      .replace('Example^Alex', 'O\\ZAP\\Brien^\\H\\Alex\\N\\')
      .replace('Paracetamol 500mg', 'Paracetamol\\C2842\\ 500mg')
      .replace('Two tablets up to four times a day', 'Two tablets up to four times a day \\M2442\\$3$s$K$A$O\\C2842\\'),
    // A right-hand set switch over text the message was not decoded in, and escapes a separator cut in two.
    'escapes-unapplied.hl7': hl7(hl7Order('EU-1'))
      .replace('Example^Alex', 'Example^Zo\\C2D42\\\u00eb')
      .replace('four times a day', 'four times a day \\X2E^\\'),
    // A second patient in one message, and a message whose PID is there twice, unchanged.
    'second-patient.hl7': [
      hl7(hl7Order('SP-1')).replace(/(PID\|[^\r]*\r)/, (pid: string) => pid + pid.replace('Example^Alex', 'Other^Sam')),
      hl7(hl7Order('SP-2')).replace(/(PID\|[^\r]*\r)/, '$1$1'),
    ].join('\r'),
    // HL7 v2.7's truncation character (MSH-2 `^~\\&#`): a value ending in it was cut short; `\\P\\` writes it as text.
    'truncation-character.hl7': hl7(hl7Order('TC-1'))
      .replace('MSH|^~\\&|', 'MSH|^~\\&#|')
      .replace('|P|2.5', '|P|2.7')
      .replace(/Flat 2/g, 'Flat \\P\\2')
      .replace('four times a day', 'four tim#'),
    // Segment names not in capitals: read as the segments they name, said once.
    'segment-name-case.hl7': hl7(hl7Order('SC-1')).replace('\rPID|', '\rpid|').replace('\rRXE|', '\rRxe|'),
    'omp-o09.hl7': hl7(hl7Order('O-1'))
      .replace('RDE^O11^RDE_O11', 'OMP^O09^OMP_O09')
      .replace(/RXE\|\|([^|]*)\|\|\|\|\|([^|]*)\|\|\|([^|\r]*)(\|\|([^|\r]*))?/g, 'RXO|$1||||||$2||||$3||$5'),
    'orm-o01.hl7': hl7(hl7Order('R-1'))
      .replace('RDE^O11^RDE_O11', 'ORM^O01^ORM_O01')
      .replace(/RXE\|\|([^|]*)\|\|\|\|\|([^|]*)\|\|\|([^|\r]*)(\|\|([^|\r]*))?/g, 'RXO|$1||||||$2||||$3||$5'),
    'cancel-ca.hl7': hl7(hl7Order('C-1'), { orderControl: 'CA' }),
    // HL7 v2.3's pharmacy order (RDE^O01; 2.4 renamed it RDE^O11), as UK systems still send it: no MSH-9.3, a PV1
    // visit, RXE-1 timing and an RXR route, none of which the map reads.
    'rde-o01-v23.hl7': hl7(hl7Order('V23-1'))
      .replace('RDE^O11^RDE_O11|MSG-V23-1|P|2.5', 'RDE^O01|MSG-V23-1|P|2.3')
      .replace('\rORC|', '\rPV1|1|O|OPD^^^CLINIC-A\rORC|')
      .replace('\rRXE||', '\rRXE|1^BD^^20250101|')
      .concat('\rRXR|PO^Oral^HL70162'),
    // A pharmacy dispense (RDS^O13): what was handed out, not an order to fill.
    'rds-o13-dispense.hl7': hl7(hl7Order('DS-1'))
      .replace('RDE^O11^RDE_O11', 'RDS^O13^RDS_O13')
      .replace(/\rRXE\|\|([^|]*)[^\r]*/, '\rRXD|1|$1|20250102|32'),
    'wrong-type-adt.hl7':
      'MSH|^~\\&|PAS|HOSP|RX|PHARM|20250101120000||ADT^A01^ADT_A01|ADT-1|P|2.5\rPID|1||P1||Example^Alex\r',
    'broken-msh.hl7': 'MSH|^~\rgarbage that is not a segment\r',
    'multiple-rxe.hl7': hl7(
      hl7Order('X-1', (o) => {
        o.prescribedItems.push(
          {
            dmdCode: DMD.ibuprofen,
            medication: 'Ibuprofen 400mg tablets',
            dosageInstructions: 'One tablet',
            quantity: 12,
          },
          { dmdCode: DMD.long18, medication: 'Test item', dosageInstructions: 'As directed', quantity: 1 },
        );
      }),
    ),
    'coding-system-ndc.hl7': hl7(hl7Order('N-1')).replace('^DMD', '^NDC'),
    'clinic-from-msh4.hl7': hl7(hl7Order('F-1'), { sendingFacility: 'CLINIC-MSH' }).replace('^^^^^^^^^CLINIC-A', ''),
    'duplicate-in-file.hl7': [hl7(hl7Order('DUP-1')), hl7(hl7Order('DUP-1'))].join('\r'),
    'windows-1252.hl7': iconv.encode(hl7(hl7Order('W-1', (o) => (o.customer.firstName = 'Zoë'))), 'windows-1252'),
    'delivery-mailing.hl7': hl7(
      exampleOrder('DM-1', (o) => {
        o.deliveryAddress = { address1: '3 Test Lane', city: 'York', postCode: 'YO1 7HH', countryCode: 'GBR' };
      }),
    ),
    'repeats-disagree.hl7': hl7(
      hl7Order('RD-1', (o) => {
        o.prescribedItems.push({
          dmdCode: DMD.ibuprofen,
          medication: 'Ibuprofen 400mg tablets',
          dosageInstructions: 'One tablet',
          quantity: 12,
        });
        o.prescription.repeatsAllowed = 1;
      }),
    ).replace(/\|1$/, '|3'),
    'stray-segments.hl7': `PID|1||STRAY\r${hl7(hl7Order('S-1'))}`,
    // Repeated fields (#15, class 4): joined, chosen, or an error naming the values; never silently the first.
    'repeated-dosage.hl7': setField(
      setField(
        hl7(
          hl7Order('RP-1', (o) =>
            o.prescribedItems.push({
              dmdCode: DMD.ibuprofen,
              medication: 'Ibuprofen 400mg tablets',
              dosageInstructions: 'x',
              quantity: 12,
            }),
          ),
        ),
        'RXE',
        7,
        '^One tablet daily~^with food',
      ),
      'RXE',
      7,
      'TAKE1^Take one.~^With water.~~AVOID-ALC^Avoid alcohol',
      2,
    ),
    'repeated-dosage-orm.hl7': setField(
      hl7(hl7Order('RP-2'))
        .replace('RDE^O11^RDE_O11', 'ORM^O01^ORM_O01')
        .replace(/RXE\|\|([^|]*)\|\|\|\|\|([^|]*)\|\|\|([^|\r]*)(\|\|([^|\r]*))?/g, 'RXO|$1||||||$2||||$3||$5'),
      'RXO',
      7,
      '^Two tablets~^up to four times a day~^not more often than every four hours',
    ),
    'repeated-differ.hl7': setField(
      setField(
        setField(hl7(hl7Order('RP-3')), 'PID', 7, '19800115~19810202'),
        'ORC',
        12,
        '7123456^Dr Jane Smith~7654321^Dr Ola Other',
      ),
      'RXE',
      10,
      '32~64',
    ),
    'repeated-agree.hl7': setField(
      setField(setField(setField(hl7(hl7Order('RP-4')), 'PID', 8, 'F~F'), 'ORC', 2, '~RP-4'), 'RXE', 10, '32~~32'),
      'PID',
      5,
      'Smith^Al^^^Mr^^A~Example^Alex^^^Ms^^L',
    ),
    'repeated-choice.hl7': setField(
      hl7(hl7Order('RP-5')),
      'PID',
      11,
      '1 High Street^^Leeds^^LS1 4AP^GBR^H~9 Old Road^^Hull^^HU1 1AA^GBR^H',
    ),
    // CSV headers named twice (#15, class 5): an error naming the columns unless a profile picks one; copies warned.
    'duplicate-header.csv': withColumn(
      withColumn(example, 'DateOfBirth ', (row) => ['1980-01-16', '1980-01-16', '1975-07-01', '1992-11-04'][row - 1]!),
      'Surname',
      () => 'Other',
    ),
    'duplicate-header-same-values.csv': withColumn(one, 'dmdcode', () => DMD.paracetamol),
    'duplicate-unmapped.csv': withColumn(
      withColumn(one, 'Notes', () => 'first'),
      'notes',
      () => 'second',
    ),
    'renamed-duplicate.csv': OTHER_LAYOUT.split('\r\n')
      .map((line, row) => `${line},${row === 0 ? 'DOB_1' : row === 1 ? '26/12/1961' : '03/04/1980'}`)
      .join('\r\n'),
    'synonym-duplicate.csv': OTHER_LAYOUT.split('\r\n')
      .map((line, row) => `${line},${row === 0 ? 'Date of Birth' : row === 1 ? '25/12/1961' : '03/04/1980'}`)
      .join('\r\n'),
    // Values from the wild (#15, class 8): HL7 nulls, address types, phones in parts, dotted titles, coding systems.
    'hl7-null.hl7': setField(
      setField(
        setField(
          setField(
            setField(hl7(hl7Order('N8-1')), 'PID', 5, 'Example^Alex^""^^Ms'),
            'PID',
            11,
            '1 High Street^""^Leeds^""^LS1 4AP^GBR^H',
          ),
          'PID',
          13,
          '07700900123^PRN^PH~^NET^Internet^""',
        ),
        'ORC',
        22,
        '10 Market Street^""^""^""^YO1 7HH^GBR',
      ),
      'RXE',
      12,
      '""',
    ),
    'hl7-null-required.hl7': setField(hl7(hl7Order('N8-2')), 'PID', 7, '""'),
    'address-bad.hl7': setField(
      hl7(hl7Order('A8-1')),
      'PID',
      11,
      '9 Old Road^^Hull^^HU1 1AA^GBR^BA~1 High Street^Flat 2^Leeds^West Yorkshire^LS1 4AP^GBR^H~7 Gone Lane^^York^^YO1 7HH^GBR^BA',
    ),
    'address-bad-only.hl7': setField(
      hl7(hl7Order('A8-2')),
      'PID',
      11,
      '9 Old Road^^Hull^^HU1 1AA^GBR^BA~2 Office Park^^Leeds^^LS1 1AA^GBR^B',
    ),
    // Street lines in SAD parts: SAD-1 the house number and SAD-2 the street; SAD-1 empty with SAD-2 and SAD-3
    // (dwelling number); the clinic's in ORC-22.
    'address-parts.hl7': [
      setField(hl7(hl7Order('AP-1')), 'PID', 11, '1000&Hospital Lane^^Leeds^^LS1 4AP^GBR^H'),
      setField(hl7(hl7Order('AP-2')), 'PID', 11, '&High Street&1^Flat 2^Leeds^^LS1 4AP^GBR^H'),
      setField(hl7(hl7Order('AP-3')), 'ORC', 22, '&Market Street&10^^^^YO1 7HH^GBR'),
    ].join('\r'),
    'address-types.hl7': setField(
      hl7(hl7Order('A8-3')),
      'PID',
      11,
      '2 Office Park^^Leeds^^LS1 1AA^GBR^B~1 High Street^Flat 2^Leeds^West Yorkshire^LS1 4AP^GBR^P~3 Test Lane^^York^^YO1 7HH^GBR^SH~4 Post Box^^York^^YO1 7HH^GBR^M~9 Old Road^^Hull^^HU1 1AA^GBR^BA',
    ),
    'phone-parts.hl7': setField(
      setField(hl7(hl7Order('P8-1')), 'PID', 13, '^PRN^PH^^^01632^960000~^NET^Internet^alex@example.test'),
      'ORC',
      23,
      '^WPN^PH^^44^1904^000000^12~^NET^Internet^clinic@example.test',
    ),
    'phone-choice.hl7': setField(
      setField(
        hl7(hl7Order('P8-2')),
        'PID',
        13,
        '^PRN^FX^^^0113^4960001~01632960000^PRN^PH~^ORN^CP^^^^^^^^^07700900999~^NET^Internet^alex@example.test',
      ),
      'ORC',
      23,
      '07700900888^PRN^CP~01904000000^WPN^PH',
    ),
    'titles-dotted.csv': csv(
      ['Mr.', 'MRS', 'dr.', 'Prof.', ' ms ', 'Rev..'].map((title, i) =>
        exampleOrder(`T8-${i}`, (o) => (o.customer.title = title)),
      ),
    ),
    'unusual-spaces.hl7': setField(
      setField(
        setField(hl7(hl7Order('SP-1')), 'PID', 11, '1 High Street^Flat 2^Leeds^West Yorkshire^LS1\u00a04AP^GBR^H'),
        'PID',
        5,
        'Example^Al\\XE2808B\\ex^^^Ms',
      ),
      'RXE',
      7,
      '^Two\u202ftablets up to four times a day',
    ),
    'title-dotted.hl7': setField(hl7(hl7Order('T8-9')), 'PID', 5, 'Example^Alex^^^Mr.'),
    'coding-systems.hl7': [
      ['SNOMED', 1],
      ['SNOMED CT', 1],
      ['http://snomed.info/sct', 1],
      ['dm+d', 1],
      ['SNOMED-CT', 1],
      ['2.16.840.1.113883.6.96', 1],
    ]
      .reduce(
        (message, [system], i) =>
          setField(message, 'RXE', 2, `${DMD.paracetamol}^Paracetamol 500mg tablets^${system}`, i + 1),
        hl7(
          hl7Order('C8-1', (o) => {
            for (let i = 0; i < 7; i += 1) o.prescribedItems.push({ ...o.prescribedItems[0]! });
          }),
        ),
      )
      .split('\r')
      .map((segment, i, all) =>
        // The last two items: NDC first, SNOMED CT as the alternate (CE-4…6) or the second alternate (CWE-10…12).
        i === all.length - 2
          ? segment.replace(
              /RXE\|\|[^|]*/,
              `RXE||0000-1111^Paracetamol (NDC)^NDC^${DMD.paracetamol}^Paracetamol 500mg tablets^SNOMED CT`,
            )
          : i === all.length - 1
            ? segment.replace(
                /RXE\|\|[^|]*/,
                `RXE||0000-1111^Paracetamol (NDC)^NDC^P-1^Local^99LOCAL^^^^${DMD.paracetamol}^Paracetamol 500mg tablets^SCT`,
              )
            : segment,
      )
      .join('\r'),
    // HL7 as found in the wild: comments before the first MSH, segments pasted indented from a document, batches
    // with no BHS (it is optional), text lines between and inside messages.
    'comment-before-msh.hl7': [
      '# Exported from EPR on 2025-01-01',
      '# 2 orders',
      '',
      hl7(hl7Order('W6-1'), { lineEnding: '\r\n' }),
      hl7(hl7Order('W6-2'), { lineEnding: '\r\n' }),
    ].join('\r\n'),
    'indented-segments.hl7': [
      '```hl7',
      ...hl7(hl7Order('W6-3'))
        .split('\r')
        .map((segment) => `    ${segment}`),
      '```',
      '',
    ].join('\n'),
    'fhs-no-bhs.hl7':
      ['FHS|^~\\&|EPR|CLINIC-A', hl7(hl7Order('W6-4')), hl7(hl7Order('W6-5')), 'FTS|1'].join('\r') + '\r',
    'fhs-no-bhs-bts.hl7':
      [
        'FHS|^~\\&|EPR|CLINIC-A',
        hl7(hl7Order('W6-6')),
        hl7(hl7Order('W6-7')),
        hl7(hl7Order('W6-8')),
        'BTS|3',
        'FTS|1',
      ].join('\n') + '\n',
    // Encodings from the wild (#15, class 7): refused by name when Rx Batch does not read them or nobody named them,
    // read when MSH-18 names one it reads.
    'iso-2022-jp.hl7': withBytes(
      withMsh18(
        hl7(hl7Order('J-1', (o) => ((o.customer.surname = 'YAMADA'), (o.customer.firstName = 'TARO')))),
        '~ISO IR87',
      ),
      JIS,
    ),
    'iso-2022-jp.csv': withBytes(
      csv([exampleOrder('J-2', (o) => ((o.customer.surname = 'YAMADA'), (o.customer.firstName = 'TARO')))]),
      JIS,
    ),
    'shift-jis-undeclared.csv': iconv.encode(csv([exampleOrder('J-3', japanese)]), 'shift_jis'),
    'euc-jp-undeclared.csv': iconv.encode(csv([exampleOrder('J-4', japanese)]), 'euc-jp'),
    'shift-jis-declared.hl7': iconv.encode(withMsh18(hl7(hl7Order('J-5', japanese)), 'SJIS'), 'shift_jis'),
    'gb18030-declared.hl7': iconv.encode(
      withMsh18(
        hl7(
          hl7Order('G-1', (o) => {
            o.customer.surname = '王';
            o.customer.firstName = '小明';
          }),
        ),
        'GB 18030-2000',
      ),
      'gb18030',
    ),
    'euc-kr-declared.hl7': iconv.encode(
      withMsh18(
        hl7(
          hl7Order('K-1', (o) => {
            o.customer.surname = '김';
            o.customer.firstName = '민준';
          }),
        ),
        'KS X 1001',
      ),
      'euc-kr',
    ),
    'latin2-declared.hl7': iconv.encode(
      withMsh18(
        hl7(
          hl7Order('L-2', (o) => {
            o.customer.surname = 'Wójcik';
            o.customer.firstName = 'Łukasz';
          }),
        ),
        '8859/2',
      ),
      'iso-8859-2',
    ),
    'utf8-labelled-latin1.hl7': withMsh18(hl7(hl7Order('U-1', (o) => (o.customer.firstName = 'Zoë'))), '8859/1'),
    'utf32le-bom.csv': Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), iconv.encode(accented, 'utf-32le')]),
    'text-between-segments.hl7': [
      'Message 1',
      hl7(hl7Order('W6-9'), { lineEnding: '\n' }).replace('\nORC|', '\n(continued from the page before)\nORC|'),
      '',
      'Message 2',
      hl7(hl7Order('W6-10'), { lineEnding: '\n' }),
    ].join('\n'),
    // A transfer cut short after the next message's MSH: the header alone is one error, not one per field.
    'cut-after-msh.hl7': `${hl7(hl7Order('W6-13'))}\r${hl7(hl7Order('W6-14')).split('\r')[0]}\r`,
    // A message copied out of JSON: on one line, the text \r between segments and MSH-2's backslash doubled (refused,
    // saying what to do); and one escaped twice, \\n between segments (the doubled backslash is part of the break).
    'msh-backslash-doubled.hl7': hl7(hl7Order('J-1')).replace('^~\\&', '^~\\\\&').split('\r').join('\\r') + '\n',
    'text-breaks-doubled.hl7': hl7(hl7Order('J-2')).split('\r').join('\\\\n') + '\n',
    // A line that is only the text \r (a blank line of a message copied from source code), inside a message and
    // between two: each is a stray line by its number, never nothing.
    'text-cr-lines.hl7':
      [hl7(hl7Order('W6-11')).replace('\rORC|', '\r\\r\rORC|'), '\\r', hl7(hl7Order('W6-12'))].join('\r') + '\r',
  };
  return files;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  mkdirSync(FIXTURE_DIR, { recursive: true });
  for (const [name, content] of Object.entries(fixtureFiles())) writeFileSync(join(FIXTURE_DIR, name), content);
  console.log(`wrote ${Object.keys(fixtureFiles()).length} fixtures to ${FIXTURE_DIR}`);
}
