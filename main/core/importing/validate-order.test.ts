import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import type { CreateWithClinicV1Input } from '../../../shared/orders.js';
import { validateOrder, type Provenance } from './index.js';
import { exampleOrder } from './testing/write-fixtures.js';

const TODAY = new Date('2025-06-01T00:00:00Z');
const check = (
  edit: (order: CreateWithClinicV1Input) => void,
  extra: Partial<Parameters<typeof validateOrder>[1]> = {},
) => validateOrder(exampleOrder('V-1', edit), { codeLists: DEFAULT_CODE_LISTS, today: TODAY, file: 'f.csv', ...extra });
const codes = (problems: ReturnType<typeof validateOrder>) => problems.map((p) => `${p.code}:${p.field}`);

describe('validating a create-with-clinic order offline', () => {
  it('passes a complete, valid order', () => {
    expect(check(() => {})).toEqual([]);
  });

  it.each<[string, (o: CreateWithClinicV1Input) => void, string]>([
    [
      'a wrong check digit',
      (o) => (o.prescribedItems[0]!.dmdCode = '42109611000001108'),
      'dmd.checkDigit:prescribedItems.0.dmdCode',
    ],
    [
      'a description id',
      (o) => (o.prescribedItems[0]!.dmdCode = '1234567013'),
      'dmd.partition:prescribedItems.0.dmdCode',
    ],
    [
      'letters in a dm+d code',
      (o) => (o.prescribedItems[0]!.dmdCode = '4210961100000110X'),
      'dmd.notDigits:prescribedItems.0.dmdCode',
    ],
    [
      'a postcode that is not British',
      (o) => (o.homeAddress.postCode = '90210'),
      'postcode.format:homeAddress.postCode',
    ],
    [
      'a two-letter country',
      (o) => (o.deliveryAddress.countryCode = 'GB'),
      'country.format:deliveryAddress.countryCode',
    ],
    [
      'a birth date in the future',
      (o) => (o.customer.dateOfBirth = '2025-06-02'),
      'dateOfBirth.future:customer.dateOfBirth',
    ],
    [
      'a patient of 131',
      (o) => (o.customer.dateOfBirth = '1894-05-31'),
      'dateOfBirth.implausible:customer.dateOfBirth',
    ],
    ['an email without @', (o) => (o.customer.email = 'alex.example.test'), 'email.format:customer.email'],
    ['a short phone number', (o) => (o.customer.telephone = '0770090'), 'telephone.format:customer.telephone'],
    [
      'a clinic phone with letters',
      (o) => (o.clinicInformation.contactNumber = 'call reception'),
      'telephone.format:clinicInformation.contactNumber',
    ],
    [
      'a GMC number of 6 digits',
      (o) => (o.prescribingDoctor.registrationNumber = '712345'),
      'registrationNumber.format:prescribingDoctor.registrationNumber',
    ],
    ['a quantity of 0', (o) => (o.prescribedItems[0]!.quantity = 0), 'quantity.range:prescribedItems.0.quantity'],
    [
      'a quantity of 10,001',
      (o) => (o.prescribedItems[0]!.quantity = 10_001),
      'quantity.range:prescribedItems.0.quantity',
    ],
    ['1,001 packs', (o) => (o.prescribedItems[0]!.pack = 1001), 'pack.range:prescribedItems.0.pack'],
    ['53 repeats', (o) => (o.prescription.repeatsAllowed = 53), 'repeats.range:prescription.repeatsAllowed'],
    ['an unknown courier', (o) => (o.prescription.courierCode = 'FEDEX'), 'enum.unknown:prescription.courierCode'],
    ['an unknown payment type', (o) => (o.prescription.paymentType = 'Cash'), 'enum.unknown:prescription.paymentType'],
    [
      'a missing surname',
      (o) => delete (o.customer as Partial<typeof o.customer>).surname,
      'field.required:customer.surname',
    ],
    ['no items', (o) => (o.prescribedItems = []), 'order.noItems:prescribedItems'],
    ['a 101-character first name', (o) => (o.customer.firstName = 'x'.repeat(101)), 'field.tooLong:customer.firstName'],
  ])('reports %s', (_name, edit, expected) => {
    expect(codes(check(edit))).toEqual([expected]);
  });

  it('says a missing field is required in words that agree with its name', () => {
    const missing = check((o) => {
      const item = o.prescribedItems[0] as Partial<(typeof o.prescribedItems)[0]>;
      delete item.dosageInstructions;
      delete item.quantity;
    });
    expect(missing.map((p) => p.text)).toEqual([
      'Item 1 dosage instructions are required.',
      'Item 1 quantity is required.',
    ]);
  });

  it('accepts the UK formats people actually write', () => {
    for (const phone of [
      '07700 900123',
      '+44 7700 900123',
      '+44 (0)20 7946 0000',
      '0044 113 496 0000',
      '(0113) 496-0000',
    ]) {
      expect(check((o) => (o.customer.telephone = phone))).toEqual([]);
    }
    for (const postcode of ['SW1A 1AA', 'sw1a1aa', 'M1 1AE', 'B33 8TH', 'CR2 6XH', 'DN55 1PT', 'GIR 0AA']) {
      expect(check((o) => (o.homeAddress.postCode = postcode))).toEqual([]);
    }
    expect(check((o) => (o.prescribingDoctor.registrationNumber = '12A3456E'))).toEqual([]);
    // A postcode abroad is the service's business, not a UK rule's.
    expect(check((o) => (o.homeAddress = { ...o.homeAddress, postCode: 'D02 X285', countryCode: 'IRL' }))).toEqual([]);
  });

  it('names file, row and field, with a sentence that says what is wrong', () => {
    const provenance: Record<string, Provenance> = {
      'prescribedItems.0.dmdCode': { kind: 'csv', file: 'f.csv', row: 7, column: 'DMD' },
    };
    const [problem] = check((o) => (o.prescribedItems[0]!.dmdCode = '42109611000001108'), { provenance });
    expect(problem).toEqual({
      severity: 'error',
      file: 'f.csv',
      row: 7,
      field: 'prescribedItems.0.dmdCode',
      code: 'dmd.checkDigit',
      text: 'Item 1 dm+d code \'42109611000001108\' is not a valid dm+d code: its last digit does not match the Verhoeff check digit (column "DMD").',
    });
    const [missing] = check((o) => delete (o.customer as Partial<typeof o.customer>).surname, { fallback: { row: 3 } });
    expect(missing).toMatchObject({ row: 3, text: 'Surname is required.' });
  });

  it('reports a field once, with its specific rule rather than the schema message', () => {
    expect(codes(check((o) => (o.prescribedItems[0]!.dmdCode = '0123')))).toEqual([
      'dmd.leadingZero:prescribedItems.0.dmdCode',
    ]);
    expect(codes(check((o) => (o.prescribedItems[0]!.quantity = -1)))).toEqual([
      'quantity.range:prescribedItems.0.quantity',
    ]);
    expect(check((o) => (o.customer.surname = '')).map((p) => p.field)).toEqual(['customer.surname']);
  });

  it('refuses text a decoder could not read (U+FFFD), wherever it is, naming the field and what to do', () => {
    const problems = check((o) => {
      o.customer.surname = 'Bront\uFFFD';
      o.prescribedItems[0]!.dosageInstructions = 'One \uFFFD day';
    });
    expect(codes(problems)).toEqual([
      'text.unreadable:customer.surname',
      'text.unreadable:prescribedItems.0.dosageInstructions',
    ]);
    expect(problems[0]!.text).toBe(
      "Surname 'Bront\uFFFD' has characters that could not be read (shown as �): the file was read in another encoding than it was written in; import it again with its encoding.",
    );
    // Unicode the file really holds is fine.
    expect(check((o) => (o.customer.surname = 'Brontë-Ōsaka'))).toEqual([]);
  });

  it('skips fields the importer already reported', () => {
    expect(check((o) => (o.customer.dateOfBirth = 'not a date'), { skip: new Set(['customer.dateOfBirth']) })).toEqual(
      [],
    );
  });

  it('uses the environment’s code lists', () => {
    const codeLists = { ...DEFAULT_CODE_LISTS, courierCodes: ['DHL'] };
    expect(codes(check(() => {}, { codeLists }))).toEqual(['enum.unknown:prescription.courierCode']);
  });
});

describe("NHS pseudo-postcodes (Cerner Millennium's RDE^O01 writes 'No Fixed Abode^^^^ZZ99 3VZ^GBR')", () => {
  it.each([
    ['ZZ99 3VZ', 'no fixed abode'],
    ['zz993vz', 'no fixed abode'],
    ['ZZ99 3CZ', 'no postcode known, only a country'],
  ])('%s is refused as a pseudo-postcode (%s), not as a mistyped one', (postcode, meaning) => {
    const problems = check((o) => (o.homeAddress.postCode = postcode));
    expect(codes(problems)).toEqual(['postcode.format:homeAddress.postCode']);
    expect(problems[0]!.text).toContain(
      `is an NHS pseudo-postcode (${meaning}), not an address a courier can deliver to`,
    );
  });

  it('a real ZZ-less postcode is still just checked for shape', () => {
    expect(check((o) => (o.homeAddress.postCode = 'ZZ1 1ZZ'))[0]!.text).toContain('is not a UK postcode');
  });
});

describe('a US National Drug Code in the dm+d field (nHapi, GoogleCloudPlatform and Epic samples send NDCs)', () => {
  it.each(['0006-0740-31', '54569-4888-0', '00378-1805-10', '00069-0150-01'])('%s is named as an NDC', (code) => {
    const problems = check((o) => (o.prescribedItems[0]!.dmdCode = code));
    expect(codes(problems)).toEqual(['dmd.notDigits:prescribedItems.0.dmdCode']);
    expect(problems[0]!.text).toContain('it is written as a US National Drug Code (NDC)');
  });

  it('another code with dashes is only said to have them', () => {
    const problems = check((o) => (o.prescribedItems[0]!.dmdCode = '4210-9611-000001109'));
    expect(problems[0]!.text).not.toContain('NDC');
  });
});
