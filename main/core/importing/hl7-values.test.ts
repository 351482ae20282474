import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { fieldIndex } from '../model/field-catalogue.js';
import { codeKey } from './finish-order.js';
import { parseHl7Message } from '../model/hl7-adapter.js';
import { extractHl7Order, isDmdSystem } from './hl7-field-map.js';
import { writeRde011 } from './rde-writer.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * Values as other systems write them: HL7's null, address types, phone numbers in parts, titles with a dot, the many
 * names of SNOMED CT. Each read for what it means, not for its spelling.
 */

const BASE = writeRde011(exampleOrder('V-1'), { timestamp: '20250101120000' }).split('\r');

function withField(name: string, field: number, raw: string): string[] {
  return BASE.map((segment) => {
    if (!segment.startsWith(`${name}|`)) return segment;
    const fields = segment.split('|');
    while (fields.length <= field) fields.push('');
    fields[field] = raw;
    return fields.join('|');
  });
}

const extract = (segments: string[]) => extractHl7Order(parseHl7Message(segments), { file: 'f.hl7', messageIndex: 1 });
const orderValue = (segments: string[], column: string) => extract(segments).cells.order.values[fieldIndex(column)!];

describe("HL7's null", () => {
  it('is no value wherever it stands: a field, a component, a repetition (property)', () => {
    const places = [
      ['PID', 5, 'surname'],
      ['PID', 7, 'dateOfBirth'],
      ['PID', 8, 'gender'],
      ['PID', 13, 'telephone'],
      ['PID', 11, 'homeAddress1'],
      ['ORC', 2, 'clinicOrderId'],
      ['ORC', 12, 'prescriberName'],
      ['ORC', 21, 'clinicName'],
      ['ORC', 22, 'clinicAddress1'],
      ['RXE', 12, 'repeatsAllowed'],
    ] as const;
    fc.assert(
      fc.property(fc.constantFrom(...places), fc.constantFrom('""', ' "" ', '""~""', '""^""'), ([name, field], raw) => {
        const extraction = extract(withField(name, field, raw));
        const all = [...extraction.cells.order.values, ...extraction.cells.items.flatMap((item) => item.values)];
        expect(all.filter((value) => value?.includes('""'))).toEqual([]);
      }),
    );
    expect(orderValue(withField('PID', 7, '""'), 'dateOfBirth')).toBeUndefined();
    // A text that only looks like it, written escaped, is kept.
    expect(orderValue(withField('PID', 5, 'Example^\\X22\\"'), 'firstName')).toBe('""');
  });
});

describe('PID-11 address types', () => {
  const addresses = (...reps: [string, string][]) =>
    withField('PID', 11, reps.map(([street, type]) => `${street}^^Leeds^^LS1 4AP^GBR^${type}`).join('~'));
  const home = (segments: string[]) => orderValue(segments, 'homeAddress1');
  const delivery = (segments: string[]) => orderValue(segments, 'deliveryAddress1');

  it('never takes a bad address (BA) for home or delivery, wherever it stands', () => {
    expect(home(addresses(['bad', 'BA'], ['home', 'H']))).toBe('home');
    expect(home(addresses(['bad', 'BA'], ['none', '']))).toBe('none');
    expect(home(addresses(['bad', 'BA'], ['mail', 'M']))).toBe('mail');
    expect(delivery(addresses(['home', 'H'], ['bad', 'BA']))).toBeUndefined();
    expect(delivery(addresses(['bad', 'BA'], ['ship', 'SH']))).toBe('ship');
    const only = extract(addresses(['bad', 'BA']));
    expect(only.problems).toMatchObject([{ code: 'hl7.noHomeAddress', severity: 'error' }]);
    expect(only.cells.order.values[fieldIndex('homeAddress1')!]).toBeUndefined();
  });

  it('takes home as H, then P, L or RH, then no type, then C, then mailing; delivery as SH, then M', () => {
    expect(home(addresses(['work', 'B'], ['perm', 'P'], ['home', 'H']))).toBe('home');
    expect(home(addresses(['work', 'O'], ['temp', 'C'], ['legal', 'L']))).toBe('legal');
    expect(home(addresses(['temp', 'C'], ['none', '']))).toBe('none');
    expect(home(addresses(['billing', 'BI'], ['temp', 'C']))).toBe('temp');
    expect(home(addresses(['mail', 'M'], ['vacation', 'V']))).toBe('mail');
    expect(delivery(addresses(['home', 'H'], ['mail', 'M'], ['ship', 'SH']))).toBe('ship');
    expect(delivery(addresses(['home', 'H'], ['mail', 'M']))).toBe('mail');
  });

  it("takes the clinic's address (ORC-22) as the firm's or office's, then untyped, then mailing; never BA", () => {
    const clinic = (raw: string) => orderValue(withField('ORC', 22, raw), 'clinicAddress1');
    expect(clinic('PO Box 5^^^^YO1 7HH^GBR^M~12 High Petergate^^^^YO1 7EN^GBR^B~Gone^^^^YO1 7HH^GBR^BA')).toBe(
      '12 High Petergate',
    );
    expect(clinic('Gone^^^^YO1 7HH^GBR^BA~PO Box 5^^^^YO1 7HH^GBR^M')).toBe('PO Box 5');
    expect(clinic('Gone^^^^YO1 7HH^GBR^BA')).toBeUndefined();
    const tie = extract(withField('ORC', 22, '1 A St^^^^YO1 7HH^GBR^B~2 B St^^^^YO1 7HH^GBR^O'));
    expect(tie.problems).toMatchObject([{ code: 'hl7.repeatChoice', field: 'clinicInformation.address1' }]);
  });
});

describe('PID-13 and ORC-23 phones', () => {
  const phone = (raw: string) => orderValue(withField('PID', 13, raw), 'telephone');

  it('reads a number given only in parts (XTN-5, 6, 7) or in XTN-12', () => {
    expect(phone('^PRN^PH^^^01632^960000')).toBe('01632 960000');
    expect(phone('^PRN^PH^^44^01632^960000')).toBe('+44 1632 960000');
    expect(phone('^PRN^PH^^+44^1632^960000')).toBe('+44 1632 960000');
    expect(phone('^PRN^CP^^^^07700900123')).toBe('07700900123');
    expect(phone('^PRN^PH^^^^^^^^^01632 960000')).toBe('01632 960000');
    expect(phone('(01632) 960000^PRN^PH^^^0999^999999')).toBe('(01632) 960000');
  });

  it('chooses by use and equipment, never a fax, beeper or modem, and says when an extension is left out', () => {
    expect(phone('^PRN^FX^^^0113^4960001~01632960000^PRN^PH')).toBe('01632960000');
    expect(phone('01632960000^PRN^PH~07700900123^PRN^CP')).toBe('07700900123');
    expect(phone('01632960001^WPN^PH~01632960000^ORN^PH')).toBe('01632960000');
    expect(phone('01632960001^EMR^PH~01632960002^VHN^PH')).toBe('01632960002');
    expect(phone('07700900111^BPN^BP')).toBeUndefined();
    const ext = extract(withField('PID', 13, '^PRN^PH^^^01632^960000^42'));
    expect(ext.problems).toMatchObject([{ code: 'hl7.phoneExtension', field: 'customer.telephone' }]);
    const tie = extract(withField('PID', 13, '01632960000^PRN^PH~01632960001^PRN^PH'));
    expect(tie.problems).toMatchObject([
      { code: 'hl7.repeatChoice', severity: 'warning', field: 'customer.telephone' },
    ]);
    const clinic = orderValue(withField('ORC', 23, '07700900888^PRN^CP~01904000000^WPN^PH'), 'clinicContactNumber');
    expect(clinic).toBe('01904000000');
  });

  it('reads an email from XTN-4, or from an XTN-1 with an @, and never as the phone', () => {
    const segments = withField('PID', 13, 'alex@example.test~07700900123^PRN^CP');
    expect(orderValue(segments, 'email')).toBe('alex@example.test');
    expect(orderValue(segments, 'telephone')).toBe('07700900123');
    expect(orderValue(withField('PID', 13, '^PRN^PH^alex@example.test'), 'email')).toBe('alex@example.test');
  });
});

describe('titles and other codes', () => {
  it("match the environment's list whatever the case, spacing or trailing dots (property)", () => {
    const variant = (title: string) =>
      fc
        .tuple(
          fc.array(fc.boolean(), { minLength: title.length, maxLength: title.length }),
          fc.constantFrom('', '.', '..', ' .'),
          fc.constantFrom('', ' ', '  '),
        )
        .map(
          ([upper, dot, pad]) =>
            `${pad}${[...title].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join('')}${dot}${pad}`,
        );
    const titles = DEFAULT_CODE_LISTS.titles;
    fc.assert(
      fc.property(
        fc.constantFrom(...titles).chain((title) => fc.tuple(fc.constant(title), variant(title))),
        ([title, written]) => {
          const matches = titles.filter((entry) => codeKey(entry) === codeKey(written));
          expect(matches).toEqual([title]);
        },
      ),
    );
    expect(codeKey('Mr.')).not.toBe(codeKey('Mrs'));
  });
});

describe('coding systems that mean dm+d', () => {
  it('accepts the names of SNOMED CT and dm+d, and nothing else', () => {
    for (const system of [
      'SCT',
      'sct',
      'SNOMED',
      'SNOMED CT',
      'SNOMED-CT',
      'SnomedCT',
      'SNOMED_CT',
      'SNOMED CT UK',
      'DMD',
      'dm+d',
      'DM&D',
      'NHS dm+d',
      'http://snomed.info/sct',
      'http://snomed.info/sct/999000011000001104',
      '2.16.840.1.113883.6.96',
      'urn:oid:2.16.840.1.113883.6.96',
    ])
      expect(isDmdSystem(system), system).toBe(true);
    for (const system of ['NDC', 'RXNORM', 'LN', 'I10', '99LOCAL', 'SNOMEDX', 'http://loinc.org', ''])
      expect(isDmdSystem(system), system).toBe(false);
  });

  it('reads the code from the first of the identifier, alternate and second alternate coded in dm+d', () => {
    const code = (raw: string) => extract(withField('RXE', 2, raw)).cells.items[0]!.values;
    const dmd = fieldIndex('dmdCode')!;
    const medication = fieldIndex('medication')!;
    expect(code('42109611000001109^Paracetamol^SNOMED CT')[dmd]).toBe('42109611000001109');
    expect(code('X1^Local^99L^42109611000001109^Paracetamol^http://snomed.info/sct')[dmd]).toBe('42109611000001109');
    const second = code('X1^Local^99L^X2^Other^NDC^^^^42109611000001109^Paracetamol^SCT');
    expect([second[dmd], second[medication]]).toEqual(['42109611000001109', 'Paracetamol']);
    expect(extract(withField('RXE', 2, '0000-1111^Paracetamol^NDC')).problems).toMatchObject([
      { code: 'hl7.codingSystem' },
    ]);
  });
});

describe('an "&" the sender did not escape', () => {
  const itemValue = (segments: string[], column: string) =>
    extract(segments).cells.items[0]!.values[fieldIndex(column)!];
  const dosage = (text: string) => withField('RXE', 7, `^${text}`);

  it('is text where the field has no subcomponents: the whole value is read, with a warning naming the field', () => {
    // Hand-written and spreadsheet-built messages write "morning & evening" as it is; read by subcomponents it was
    // silently cut to "Take one morning".
    const segments = dosage('Take one morning & one evening');
    expect(itemValue(segments, 'dosageInstructions')).toBe('Take one morning & one evening');
    expect(extract(segments).problems).toMatchObject([
      {
        code: 'hl7.unescapedSeparator',
        severity: 'warning',
        message: 1,
        field: 'prescribedItems.0.dosageInstructions',
      },
    ]);
    expect(extract(segments).problems[0]!.text).toContain('RXE-7.2');
    expect(orderValue(withField('ORC', 21, 'Smith & Jones Clinic^^^^^^^^^CLINIC-A'), 'clinicName')).toBe(
      'Smith & Jones Clinic',
    );
    // An HTML entity pasted in: still all of it, never "Two ".
    expect(itemValue(dosage('Two &amp; three'), 'dosageInstructions')).toBe('Two &amp; three');
    // Escaped as the standard says: no warning.
    const escaped = dosage('Take one morning \\T\\ one evening');
    expect(itemValue(escaped, 'dosageInstructions')).toBe('Take one morning & one evening');
    expect(extract(escaped).problems).toEqual([]);
  });

  it('reads a name or street with its parts (FN, SAD) as the standard does, and says when the rest is not a part', () => {
    // XPN-1 and XAD-1 do have subcomponents: the first is the whole surname or street line, the rest its parts.
    const parts = withField('PID', 11, '1 High Street&High Street&1^Flat 2^Leeds^^LS1 4AP^GBR^H');
    expect(orderValue(parts, 'homeAddress1')).toBe('1 High Street');
    expect(extract(parts).problems).toEqual([]);
    expect(orderValue(withField('PID', 5, 'de Vries&de&Vries^Alex^^^Ms'), 'surname')).toBe('de Vries');
    const cut = extract(withField('PID', 5, "O'Brien & Sons^Alex^^^Ms"));
    expect(cut.cells.order.values[fieldIndex('surname')!]).toBe("O'Brien");
    expect(cut.problems).toMatchObject([
      { code: 'hl7.unescapedSeparator', severity: 'warning', field: 'customer.surname' },
    ]);
    expect(cut.problems[0]!.text).toContain("'Sons'");
  });

  it('builds a street line given in its SAD parts, and leaves a text with an unescaped "&" as it was', () => {
    const numbered = extract(withField('PID', 11, '12A&High Street^^Leeds^^LS1 4AP^GBR^H'));
    expect(numbered.cells.order.values[fieldIndex('homeAddress1')!]).toBe('12A High Street');
    expect(numbered.problems).toMatchObject([
      { code: 'hl7.addressFromParts', severity: 'warning', field: 'homeAddress.address1' },
    ]);
    expect(orderValue(withField('PID', 11, 'Flat 2&High Street&1^^Leeds^^LS1 4AP^GBR^H'), 'homeAddress1')).toBe(
      'Flat 2, 1 High Street',
    );
    expect(orderValue(withField('PID', 11, 'High Street&High Street&1^^Leeds^^LS1 4AP^GBR^H'), 'homeAddress1')).toBe(
      '1 High Street',
    );
    const text = extract(withField('PID', 11, 'Bull & Bush Lane^^Leeds^^LS1 4AP^GBR^H'));
    expect(text.cells.order.values[fieldIndex('homeAddress1')!]).toBe('Bull');
    expect(text.problems).toMatchObject([{ code: 'hl7.unescapedSeparator' }]);
  });
});

describe('an order message that prescribes nothing', () => {
  it('says which segments it holds instead of item segments, once, and names a lab order for what it is', () => {
    // An ORM^O01 for a lab test (ORC then OBR, as in nHapi's ORM^O01 parsing tests) dropped in by mistake.
    const lab = BASE.map((segment) =>
      segment.startsWith('RXE|') ? 'OBR||01444^00001||CAI^CALCIUM IONIZED|||200606191614' : segment,
    ).map((segment) => segment.replace('RDE^O11^RDE_O11', 'ORM^O01'));
    const problems = extract(lab).problems;
    expect(problems).toMatchObject([{ code: 'hl7.noItems', severity: 'error', message: 1, field: 'prescribedItems' }]);
    expect(problems[0]!.text).toContain('OBR');
    expect(problems[0]!.text).toContain('lab');
    // Said once: validation's generic "needs at least one item" is not added.
    expect(extract(lab).reported.has('prescribedItems')).toBe(true);
  });
});
