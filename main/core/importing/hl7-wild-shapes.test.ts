import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import type { ImportedOrder } from '../model/imported-order.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { importHl7Message } from './import-message.js';
import { writeRde011 } from './rde-writer.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * Shapes seen in other projects' HL7 test messages (hapi-hl7v2, nHapi, python-hl7), written here in the same shape:
 * each must be read for what it means, or refused saying why.
 */

const PROFILE: MappingProfile = {
  name: 'HL7 clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};

const BASE = writeRde011(exampleOrder('W-1'), { timestamp: '20250101120000' }).split('\r');

function withField(segments: readonly string[], name: string, field: number, raw: string): string[] {
  let done = false;
  return segments.map((segment) => {
    if (done || !segment.startsWith(`${name}|`)) return segment;
    done = true;
    const fields = segment.split('|');
    // MSH-1 is the separator itself: MSH-n is fields[n - 1].
    const at = name === 'MSH' ? field - 1 : field;
    while (fields.length <= at) fields.push('');
    fields[at] = raw;
    return fields.join('|');
  });
}

interface Item {
  dosageInstructions?: string;
  dmdCode?: string;
  medication?: string;
}
const firstItem = (order: ImportedOrder) => (order.body as { prescribedItems?: Item[] }).prescribedItems?.[0];

async function importSegments(segments: readonly string[]) {
  const { orders } = await importHl7Message(Buffer.from(segments.join('\r')), 'wild.hl7', {
    codeLists: DEFAULT_CODE_LISTS,
    profile: PROFILE,
    today: new Date('2025-06-01T00:00:00Z'),
  });
  expect(orders).toHaveLength(1);
  return orders[0]!.order;
}

describe('MSH-11: messages that are not live orders', () => {
  it('the base message is a valid order', async () => {
    const order = await importSegments(BASE);
    expect(order.problems).toEqual([]);
    expect(order.valid).toBe(true);
  });

  it.each([
    ['T', "'T', training"],
    ['D', "'D', debugging"],
    ['t', "'T', training"],
    ['T^T', "'T', training"], // nHapi's RDE^O11 test message
    ['P^A', "MSH-11.2 (processing mode) is 'A', archive"],
    ['P^R', "MSH-11.2 (processing mode) is 'R', restore from archive"],
    ['P^I', "MSH-11.2 (processing mode) is 'I', initial load"],
  ])('MSH-11 %s is an error naming the value and what it means', async (raw, said) => {
    const order = await importSegments(withField(BASE, 'MSH', 11, raw));
    expect(order.valid).toBe(false);
    const notLive = order.problems.filter((p) => p.code === 'hl7.notLive');
    expect(notLive).toHaveLength(1);
    expect(notLive[0]).toMatchObject({ severity: 'error', file: 'wild.hl7', message: 1 });
    expect(notLive[0]!.text).toContain(said);
    expect(notLive[0]!.text).toContain('MSH-11');
  });

  it.each(['P', '', 'P^T', 'p'])('MSH-11 %j is live: no problem', async (raw) => {
    const order = await importSegments(withField(BASE, 'MSH', 11, raw));
    expect(order.problems).toEqual([]);
    expect(order.valid).toBe(true);
  });
});

describe('RXE-2: a first triplet with only text, the dm+d code in an alternate', () => {
  const item = (raw: string) => withField(BASE, 'RXE', 2, raw);

  it.each([
    ['^Paracetamol 500mg tablets^^42109611000001109^Paracetamol 500mg tablets^DMD', 'RXE-2.4'],
    ['^Paracetamol 500mg tablets^DMD^42109611000001109^Paracetamol 500mg tablets^SCT', 'RXE-2.4'],
    ['^Paracetamol 500mg tablets^^^^^^^^42109611000001109^Paracetamol 500mg tablets^SCT', 'RXE-2.10'],
  ])('%s: the alternate dm+d code is read (%s)', async (raw, path) => {
    const order = await importSegments(item(raw));
    expect(order.problems).toEqual([]);
    expect(firstItem(order)).toMatchObject({
      dmdCode: '42109611000001109',
      medication: 'Paracetamol 500mg tablets',
    });
    expect(order.provenance['prescribedItems.0.dmdCode']).toMatchObject({ kind: 'hl7', path });
  });

  it("an alternate with a code and no text takes the first triplet's text as the medication", async () => {
    const order = await importSegments(item('^Paracetamol 500mg tablets^^42109611000001109^^DMD'));
    expect(order.problems).toEqual([]);
    expect(firstItem(order)).toMatchObject({
      dmdCode: '42109611000001109',
      medication: 'Paracetamol 500mg tablets',
    });
  });

  it('no code anywhere is still a missing dm+d code', async () => {
    const order = await importSegments(item('^Paracetamol 500mg tablets^^^^DMD'));
    expect(order.problems.map((p) => [p.code, p.field])).toEqual([['field.required', 'prescribedItems.0.dmdCode']]);
  });

  it('a first triplet with its own code keeps it', async () => {
    const order = await importSegments(
      item('42109611000001109^Paracetamol 500mg tablets^DMD^39720311000001101^Other^SCT'),
    );
    expect(firstItem(order)?.dmdCode).toBe('42109611000001109');
  });
});

describe('RXC: the components of a compound item', () => {
  const rxe = BASE.find((segment) => segment.startsWith('RXE|'))!;
  const at = BASE.indexOf(rxe);
  const withSegments = (before: string[], after: string[]) => [
    ...BASE.slice(0, at),
    ...before,
    rxe,
    ...after,
    ...BASE.slice(at + 1),
  ];
  // The IHE Connectathon RDE^O11 in hapi-hl7v2's tests: the order detail's RXC names the base again.
  const BASE_RXC = 'RXC|B|N02BE01^Paracetamol^ATC|500|mg^milligram^ANS+';
  const ADDITIVE = 'RXC|A|KCL20^Potassium chloride^L|20|mmol';

  it('a base only is a warning on the item naming the segment and product; the order stays valid', async () => {
    const order = await importSegments(withSegments([], [BASE_RXC]));
    expect(order.valid).toBe(true);
    expect(order.problems).toHaveLength(1);
    expect(order.problems[0]).toMatchObject({
      severity: 'warning',
      code: 'hl7.compoundBase',
      message: 1,
      field: 'prescribedItems.0.medication',
    });
    expect(order.problems[0]!.text).toContain(`segment ${at + 2} 'Paracetamol 500 milligram' (base)`);
  });

  it('an additive is an error naming it, so the item is never sent without it', async () => {
    const order = await importSegments(withSegments([], [BASE_RXC, ADDITIVE]));
    expect(order.valid).toBe(false);
    expect(order.problems.map((p) => [p.severity, p.code, p.field])).toEqual([
      ['error', 'hl7.compound', 'prescribedItems.0.medication'],
    ]);
    expect(order.problems[0]!.text).toContain("'Potassium chloride 20 mmol' (additive)");
  });

  it('an RXC of the order detail, before its RXE, belongs to that item; one of no known type is an error', async () => {
    const order = await importSegments(
      withSegments(['RXO|X^Mixture^L', 'RXC||KCL20^Potassium chloride^L|20|mmol'], []),
    );
    expect(order.problems.map((p) => [p.code, p.field])).toEqual([['hl7.compound', 'prescribedItems.0.medication']]);
    expect(order.problems[0]!.text).toContain("(type '(empty)')");
  });

  it('each ORC group keeps its own components', async () => {
    const rxe2 = rxe.replace('|32|', '|10|');
    const segments = [...withSegments([], []), 'ORC|NW|W-1', rxe2, ADDITIVE];
    const order = await importSegments(segments);
    expect(order.problems.filter((p) => p.code.startsWith('hl7.compound')).map((p) => p.field)).toEqual([
      'prescribedItems.1.medication',
    ]);
  });
});

describe('MSH-2 that cannot be read says what it is', () => {
  const refusal = async (header: string) => {
    const order = await importSegments([header, ...BASE.slice(1)]);
    expect(order.valid).toBe(false);
    expect(order.problems.map((p) => p.code)).toEqual(['hl7.unreadable']);
    return order.problems[0]!.text;
  };

  it('copied from Markdown (a supplier guide writes ^\\~\\&): names Markdown and the MSH-2 it was', async () => {
    const text = await refusal('MSH|^\\~\\&|ACME|CLINIC-A|IRIS|PHARM|20200228150014||RDE^O11|1|P|2.4');
    expect(text).toContain("MSH-2 is '^\\~\\&': the file looks copied from Markdown");
    expect(text).toContain("a backslash before ~. MSH-2 is then '^~\\&'");
  });
});

describe('MSH-2 with three encoding characters', () => {
  // Once refused as "3 encoding characters where HL7 has 4"; now read by position: `}` is the escape character and
  // the message has no subcomponent separator.
  it("hapi-hl7v2 messages.txt: MSH|^~}| (an ADT sender's header on an RDE^O11): a valid order, its escapes decoded", async () => {
    const header = 'MSH|^~}|ADMISSION|ADT1|RADIOLOGY|MIR1|19930502185327||RDE^O11|1|P|2.4';
    const order = await importSegments([
      header,
      ...withField(BASE, 'RXE', 7, '^Two tablets}S}4 times a day & with water \\ milk').slice(1),
    ]);
    expect(order.problems).toEqual([]);
    expect(order.valid).toBe(true);
    // `}S}` is the component separator as text; `&` and `\` are text, being no separator of this message.
    expect(firstItem(order)?.dosageInstructions).toBe('Two tablets^4 times a day & with water \\ milk');
    expect(order.clinicOrderId).toBe('W-1');
  });
});

describe('RXE-7 with only its identifier', () => {
  // hapi-hl7v2's and nHapi's Terser RDE^O11 sends RXE-7 '111^': a code of the sender's, no text.
  it.each([['BID^^LOCAL', "'BID' (coded in 'LOCAL')"]])(
    '%s is read as written with a warning naming the code',
    async (raw, named) => {
      const order = await importSegments(withField(BASE, 'RXE', 7, raw));
      expect(order.valid).toBe(true);
      expect(order.problems).toHaveLength(1);
      expect(order.problems[0]).toMatchObject({
        severity: 'warning',
        code: 'hl7.dosageCode',
        field: 'prescribedItems.0.dosageInstructions',
        message: 1,
      });
      expect(order.problems[0]!.text).toContain(`are ${named} from RXE-7.1, with no text (RXE-7.2)`);
    },
  );

  it('111^, a number alone, is no instruction: an error on the dosage, not the code warning', async () => {
    const order = await importSegments(withField(BASE, 'RXE', 7, '111^'));
    expect(order.valid).toBe(false);
    expect(order.problems.map((p) => `${p.severity}:${p.code}:${p.field}`)).toEqual([
      'error:dosage.numberOnly:prescribedItems.0.dosageInstructions',
    ]);
    expect(order.problems[0]!.text).toBe(
      "Item 1 dosage instructions '111' is only a number, which is no instruction for the patient (a quantity or a code in the dosage's place, or the sender's fields moved by one?): write the instructions in the preview, or ask the sender to send them (RXE-7.1).",
    );
  });

  it("says nothing when the profile reads the dosage from elsewhere (it is then the profile's field)", async () => {
    const segments = [...withField(BASE, 'RXE', 7, '111^'), 'ZDS|One tablet daily'];
    const { orders } = await importHl7Message(Buffer.from(segments.join('\r')), 'wild.hl7', {
      codeLists: DEFAULT_CODE_LISTS,
      profile: { ...PROFILE, hl7FieldMap: { dosageInstructions: 'ZDS-1' } },
      today: new Date('2025-06-01T00:00:00Z'),
    });
    expect(orders[0]!.order.problems).toEqual([]);
    expect(firstItem(orders[0]!.order)).toMatchObject({ dosageInstructions: 'One tablet daily' });
  });

  it.each(['^One tablet daily', 'One tablet daily', '01^One tablet daily'])(
    '%s (text, or free text in .1) is read without a warning',
    async (raw) => {
      const order = await importSegments(withField(BASE, 'RXE', 7, raw));
      expect(order.problems).toEqual([]);
    },
  );
});

describe('ORC-12 as NHS systems send it', () => {
  const registration = (order: ImportedOrder) =>
    (order.body as { prescribingDoctor?: { registrationNumber?: string } }).prescribingDoctor?.registrationNumber;
  // Cerner Millennium's RDE^O01 (GoogleCloudPlatform/healthcare-data-harmonization's sample), written again here.
  const CERNER =
    'C4598938^Suresh^Mohanraj^^^Dr^^^NHS Consultant Number^PRSNL^^^NONGP~716337131016^Suresh^Mohanraj^^^Dr^^^Doctor Nbr^PRSNL^^^ORGDR';

  it('a consultant code is read as its GMC number, with a warning saying so', async () => {
    const order = await importSegments(withField(BASE, 'ORC', 12, 'C4598938^Suresh^Mohanraj^^^Dr'));
    expect(registration(order)).toBe('4598938');
    expect(order.valid).toBe(true);
    expect(order.problems.map((p) => [p.severity, p.code, p.field])).toEqual([
      ['warning', 'hl7.consultantCode', 'prescribingDoctor.registrationNumber'],
    ]);
    expect(order.problems[0]!.text).toContain("ORC-12.1 'C4598938' is an NHS consultant code");
  });

  it('one prescriber with a consultant code and a local number: the registration is used, the others named', async () => {
    const order = await importSegments(withField(BASE, 'ORC', 12, CERNER));
    expect(registration(order)).toBe('4598938');
    expect(order.valid).toBe(true);
    expect(order.problems.map((p) => p.code)).toEqual(['hl7.prescriberIdChosen', 'hl7.consultantCode']);
    expect(order.problems[0]!.text).toContain(
      "2 identifiers, 'C4598938' (NHS Consultant Number), '716337131016' (Doctor Nbr); the registration number 'C4598938'",
    );
  });

  it('two different registration numbers are still an error naming both', async () => {
    const order = await importSegments(withField(BASE, 'ORC', 12, '7123456^Smith~7654321^Smith'));
    expect(order.valid).toBe(false);
    expect(order.problems.map((p) => p.code)).toEqual(['hl7.repeated']);
    expect(order.problems[0]!.text).toContain("'7123456' and '7654321'");
  });

  it('a GMC number and the same number as a consultant code agree', async () => {
    const order = await importSegments(withField(BASE, 'ORC', 12, '7123456^Smith~C7123456^Smith'));
    expect(registration(order)).toBe('7123456');
    expect(order.problems.map((p) => p.code)).toEqual(['hl7.prescriberIdChosen']);
  });
});

describe('PID-5.5 titles written out (Cerner Millennium sends PROFESSOR)', () => {
  const title = (order: ImportedOrder) => (order.body as { customer?: { title?: string } }).customer?.title;
  const withTitle = (raw: string) => withField(BASE, 'PID', 5, `Example^Alex^^^${raw}`);

  it.each([
    ['PROFESSOR', 'Prof'],
    ['Doctor', 'Dr'],
    ['mister', 'Mr'],
    ['The Reverend', 'Rev'],
    ['Revd.', 'Rev'],
  ])('%s is the environment’s %s', async (raw, expected) => {
    const order = await importSegments(withTitle(raw));
    expect(title(order)).toBe(expected);
    expect(order.problems).toEqual([]);
  });

  it('a word that is no title is still refused naming it', async () => {
    const order = await importSegments(withTitle('PREFIX'));
    expect(order.problems.map((p) => p.code)).toEqual(['enum.unknown']);
  });
});

describe('ORC-2 empty, only the filler order number in ORC-3 (GoogleCloudPlatform/healthcare-data-harmonization RDE^O01)', () => {
  const fillerOnly = withField(withField(BASE, 'ORC', 2, ''), 'ORC', 3, 'JLC201606061350');

  it('is one error naming ORC-3 and what to do, not a bare missing clinic order id', async () => {
    const order = await importSegments(fillerOnly);
    expect(order.valid).toBe(false);
    expect(order.problems.map((p) => [p.code, p.field])).toEqual([['hl7.placerMissing', 'prescription.clinicOrderId']]);
    expect(order.problems[0]!.text).toContain("ORC-3 holds 'JLC201606061350', the filler order number");
  });

  it('a profile reading the clinic order id from ORC-3 is obeyed without a word', async () => {
    const { orders } = await importHl7Message(Buffer.from(fillerOnly.join('\r')), 'wild.hl7', {
      codeLists: DEFAULT_CODE_LISTS,
      profile: { ...PROFILE, hl7FieldMap: { clinicOrderId: 'ORC-3' } },
      today: new Date('2025-06-01T00:00:00Z'),
    });
    expect(orders[0]!.order.problems).toEqual([]);
    expect(orders[0]!.order.clinicOrderId).toBe('JLC201606061350');
  });

  it('neither ORC-2 nor ORC-3 is the same error naming both fields, not a bare missing clinic order id', async () => {
    for (const segments of [
      withField(fillerOnly, 'ORC', 3, ''),
      withField(withField(fillerOnly, 'ORC', 3, ''), 'ORC', 1, 'CA'),
    ]) {
      const order = await importSegments(segments);
      expect(order.problems.map((p) => [p.code, p.field])).toEqual([
        ['hl7.placerMissing', 'prescription.clinicOrderId'],
      ]);
      expect(order.problems[0]!.text).toContain(
        "ORC-2 (placer order number, the clinic's order id) and ORC-3 (filler order number) are both empty",
      );
    }
  });

  it("a cancel is not blocked by what is wrong with the fields it does not send (Cerner UK's RDE^O01 CA)", async () => {
    // The order's segments repeated as they were, its dosage only in the timing (RXE-1) and a date of birth that is
    // no date: a new order with them needs fixing; the cancel names the order by clinic and order id alone.
    let segments = withField(withField(BASE, 'RXE', 1, '^twice a day'), 'RXE', 7, '');
    segments = withField(segments, 'PID', 7, '19801350');
    const asNew = await importSegments(segments);
    expect(asNew.problems.map((p) => p.code)).toEqual(
      expect.arrayContaining(['hl7.dosageInTiming', 'date.invalid']) as unknown,
    );
    const cancel = await importSegments(withField(segments, 'ORC', 1, 'CA'));
    expect(cancel.source.orderControl).toBe('CA');
    expect(cancel.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(cancel.valid).toBe(true);
    // Its identity still counts: no order id, no cancel.
    const unnamed = await importSegments(withField(withField(segments, 'ORC', 1, 'CA'), 'ORC', 2, ''));
    expect(unnamed.valid).toBe(false);
    expect(unnamed.problems.map((p) => p.field)).toContain('prescription.clinicOrderId');
  });

  it('a cancel with only ORC-3 says the same', async () => {
    const order = await importSegments(withField(fillerOnly, 'ORC', 1, 'CA'));
    expect(order.problems.map((p) => p.code)).toEqual(['hl7.placerMissing']);
  });
});

describe('segments run together (an Epic RDE^O11 pasted into a web page reads …|T|2.3PID|||…)', () => {
  it('is one error saying the segment breaks were lost, not that the file was cut short', async () => {
    const order = await importSegments([BASE.join('')]);
    // The code a message that is no order has (the live intake answers it AE); the text says why.
    expect(order.problems.map((p) => p.code)).toEqual(['hl7.headerOnly']);
    expect(order.problems[0]!.text).toContain('has its segments run together');
    expect(order.problems[0]!.text).toContain("has no segment break before 'PID|'");
    expect(order.problems[0]!.text).not.toContain('cut short');
  });

  it('an MSH alone is still a message cut short', async () => {
    const order = await importSegments([BASE[0]!]);
    expect(order.problems.map((p) => p.code)).toEqual(['hl7.headerOnly']);
    expect(order.problems[0]!.text).toContain('cut short');
  });

  it('a value that merely ends in a separator before a segment-like field is no join: MSH-3 "PID"', async () => {
    const order = await importSegments([BASE[0]!.replace('|RXBATCH|', '|PID|')]);
    expect(order.problems[0]!.text).toContain('cut short');
  });
});

describe('MSH-9 written the way some senders write it', () => {
  const typed = async (raw: string) => {
    const order = await importSegments(withField(BASE, 'MSH', 9, raw));
    expect(order.problems.map((p) => p.code)).toEqual(['hl7.messageType']);
    return order.problems[0]!.text;
  };

  it.each([
    ['RDE_O11', 'that is the message structure (as MSH-9.3 writes it) given as the type', "'RDE^O11^RDE_O11'"],
    ['OMP-O09', 'that is the message structure', "'OMP^O09^OMP_O09'"],
    ['rde^o11', 'written in lower case', "'RDE^O11'"],
    ['RDE', 'a type with no trigger event (MSH-9.2)', "'RDE^O11' or 'RDE^O01'"],
    ['RDE^O25^RDE_O25', 'a pharmacy refill authorisation request', 'not an order to dispense'],
  ])('%s is refused saying what it is and what to ask for', async (raw, what, ask) => {
    const text = await typed(raw);
    expect(text).toContain(what);
    expect(text).toContain(ask);
  });

  it('any other type is refused as before', async () => {
    expect(await typed('MFN^M01')).toBe(
      "Message 1 is 'MFN^M01' (MSH-9); only RDE^O11, RDE^O01, OMP^O09 and ORM^O01 carry orders.",
    );
  });
});

describe("PID-11 with only a country (nHapi's RDE^O11 sends ^^^^^USA^H)", () => {
  const home = (order: ImportedOrder) => (order.body as { homeAddress?: Record<string, string> }).homeAddress;

  it('reads the country it gives, so only what is really missing is reported', async () => {
    const order = await importSegments(withField(BASE, 'PID', 11, '^^^^^GBR^H'));
    expect(home(order)).toEqual({ countryCode: 'GBR' });
    const missing = order.problems.filter((p) => p.code === 'field.required').map((p) => p.field);
    expect(missing).toContain('homeAddress.address1');
    expect(missing).not.toContain('homeAddress.countryCode');
    expect(missing).not.toContain('deliveryAddress.countryCode');
  });

  it('never chooses it over a repetition that has an address', async () => {
    const order = await importSegments(withField(BASE, 'PID', 11, '^^^^^FRA^H~1 High Street^^Leeds^^LS1 4AP^GBR^M'));
    expect(home(order)).toMatchObject({ address1: '1 High Street', countryCode: 'GBR' });
  });
});

describe('the dosage sent in a note (NTE) after the item, RXE-7 empty', () => {
  const rxe = BASE.findIndex((segment) => segment.startsWith('RXE|'));
  const withNote = (segments: string[]) => [
    ...segments.slice(0, rxe + 1),
    'NTE|1||Take ONE tablet twice a day',
    ...segments.slice(rxe + 1),
  ];
  const noDosage = withNote(withField(BASE, 'RXE', 7, ''));

  it('is one error quoting the note and naming the profile field that reads it, not a bare missing dosage', async () => {
    const order = await importSegments(noDosage);
    expect(order.valid).toBe(false);
    expect(order.problems.map((p) => [p.code, p.field])).toEqual([
      ['hl7.dosageInNote', 'prescribedItems.0.dosageInstructions'],
    ]);
    expect(order.problems[0]!.text).toContain(`NTE segment ${rxe + 2}) reads 'Take ONE tablet twice a day'`);
  });

  it('the profile reading NTE-3 takes it, as the problem says', async () => {
    const { orders } = await importHl7Message(Buffer.from(noDosage.join('\r')), 'wild.hl7', {
      codeLists: DEFAULT_CODE_LISTS,
      profile: { ...PROFILE, hl7FieldMap: { dosageInstructions: 'NTE-3' } },
      today: new Date('2025-06-01T00:00:00Z'),
    });
    expect(orders[0]!.order.problems).toEqual([]);
    expect(firstItem(orders[0]!.order)).toMatchObject({ dosageInstructions: 'Take ONE tablet twice a day' });
  });

  it('a note beside dosage instructions is said not to be sent (a warning naming it), never dropped silently', async () => {
    const order = await importSegments(withNote(BASE));
    expect(order.valid).toBe(true);
    expect(order.problems).toEqual([
      {
        severity: 'warning',
        file: 'wild.hl7',
        message: 1,
        field: 'prescribedItems.0.dosageInstructions',
        code: 'hl7.noteNotSent',
        text: `Item 1 has a note after it (NTE segment ${rxe + 2}: 'Take ONE tablet twice a day'), which the order has no field for, so it is not sent. If it belongs to the dosage, add it to the dosage instructions in the preview, or have the profile read the dosage from NTE-3.`,
      },
    ]);
  });

  it("a note on an observation after the item (NTE after OBX) is the observation's, not the item's", async () => {
    const order = await importSegments([
      ...withNote(BASE),
      'OBX|1|ST|ABS^Antibody screen||Negative',
      'NTE|1||No Antibodies Detected',
    ]);
    expect(order.problems.map((p) => p.text)).toEqual([
      expect.stringMatching(/^Item 1 has a note after it \(NTE segment \d+: 'Take ONE tablet twice a day'\)/),
    ]);
  });

  it('several notes are listed, and a profile reading the dosage from NTE says nothing', async () => {
    const two = [...withNote(BASE), 'NTE|2||Patient is allergic to penicillin'];
    const order = await importSegments(two);
    expect(order.problems.map((p) => p.text)).toEqual([
      `Item 1 has 2 notes after it (NTE segment ${rxe + 2}: 'Take ONE tablet twice a day'; NTE segment ${two.length}: 'Patient is allergic to penicillin'), which the order has no field for, so they are not sent. If they belong to the dosage, add them to the dosage instructions in the preview, or have the profile read the dosage from NTE-3.`,
    ]);
    const { orders } = await importHl7Message(Buffer.from(withNote(BASE).join('\r')), 'wild.hl7', {
      codeLists: DEFAULT_CODE_LISTS,
      profile: { ...PROFILE, hl7FieldMap: { dosageInstructions: 'NTE-3' } },
      today: new Date('2025-06-01T00:00:00Z'),
    });
    expect(orders[0]!.order.problems).toEqual([]);
  });
});
