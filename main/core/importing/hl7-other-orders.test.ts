import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { importHl7Message } from './import-message.js';
import { writeRde011 } from './rde-writer.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * Another department's order sent to the pharmacy: an ORM^O01 whose ORC is followed by an OBR (a lab test, as in
 * nHapi's ORM^O01 parsing tests and hapi-hl7v2's OML examples), not an RXO. It is said once, as what it is; the
 * pharmacy fields such an order never fills are not each reported missing.
 */

const PROFILE: MappingProfile = {
  name: 'HL7 clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};

const MSH = 'MSH|^~\\&|HIS|MedCenter|LIS|MedCenter|20060307110114||ORM^O01|MSGID20060307110114|P|2.3.1';
const PID = 'PID|||12001||Jones^John^^^Mr.||19670824|M|||123 West St.^^Denver^CO^80020^USA';
const PV1 = 'PV1||O|OP^PAREG^||||2342^Jones^Bob|||OP';
const LAB = [MSH, PID, PV1, 'ORC|NW|20060307110114', 'OBR|1|20060307110114||003038^Urinalysis^L|||20060307110114'];

async function entries(segments: readonly string[], profile: MappingProfile | undefined = PROFILE) {
  const { orders } = await importHl7Message(Buffer.from(segments.join('\r')), 'lab.hl7', {
    codeLists: DEFAULT_CODE_LISTS,
    ...(profile ? { profile } : {}),
    today: new Date('2025-06-01T00:00:00Z'),
  });
  return orders.map((entry) => entry.order);
}

const codes = (problems: Array<{ code: string }>) => problems.map((p) => p.code);

describe('a lab or other non-pharmacy order (no RXO or RXE item)', () => {
  it.each([
    ['with a profile', PROFILE],
    ['without one', undefined],
  ])('is one hl7.noItems problem saying it is a lab order, %s', async (_, profile) => {
    const [order] = await entries(LAB, profile);
    expect(order!.valid).toBe(false);
    expect(order!.problems).toMatchObject([{ code: 'hl7.noItems', severity: 'error', message: 1 }]);
    expect(order!.problems[0]!.text).toContain('lab, imaging or other observation order');
    expect(order!.problems[0]!.text).toContain('not a pharmacy order');
    expect(order!.problems[0]!.text).toContain('no RXO or RXE item');
  });

  it('says only that, whatever else its ORC-1, MSH-11 or several ORCs would have said', async () => {
    // A lab system's status update (ORC-1 SC) from its test system, two tests in one message.
    const segments = [
      MSH.replace('|P|', '|T|'),
      PID,
      'ORC|SC|LAB-1',
      'OBR|1|LAB-1||GLUC^GLUCOSE^L',
      'ORC|SC|LAB-2',
      'OBR|2|LAB-2||CBC^BLOOD COUNT^L',
    ];
    const [order] = await entries(segments);
    expect(codes(order!.problems)).toEqual(['hl7.noItems']);
  });

  it.each([
    ['RQD', 'supply requisition'],
    ['ODS', 'dietary order'],
  ])('names an ORM^O01 with %s for what it is', async (segment, kind) => {
    const [order] = await entries([MSH, PID, 'ORC|NW|REQ-1', `${segment}|1|X`]);
    expect(codes(order!.problems)).toEqual(['hl7.noItems']);
    expect(order!.problems[0]!.text).toContain(kind);
  });

  it('reads an ORM^O01 that has an RXO as a pharmacy order, an OBR beside it or not', async () => {
    const order = exampleOrder('RX-OBR-1');
    const rde = writeRde011(order, { timestamp: '20250101120000' }).split('\r').filter(Boolean);
    const rxe = rde.find((s) => s.startsWith('RXE|'))!.split('|');
    // RXO-1 the product, RXO-7 the dosage (as RXE-7), RXO-11 the quantity.
    const rxo = ['RXO', rxe[2], '', '', '', '', '', rxe[7], '', '', '', rxe[10]].join('|');
    const segments = rde
      .map((s) => (s.startsWith('MSH|') ? s.replace('RDE^O11^RDE_O11', 'ORM^O01') : s))
      .flatMap((s) => (s.startsWith('RXE|') ? ['OBR|1|RX-OBR-1||X^Y', rxo] : [s]));
    const [read] = await entries(segments);
    expect(codes(read!.problems)).not.toContain('hl7.noItems');
    expect(read!.valid).toBe(true);
  });

  it('keeps the specific problems of a pharmacy message with no item and something else wrong', async () => {
    const rde = writeRde011(exampleOrder('RX-EMPTY'), { timestamp: '20250101120000' })
      .split('\r')
      .filter((s) => s !== '' && !s.startsWith('RXE|') && !s.startsWith('RXR|'))
      .map((s) => (s.startsWith('PID|') ? s.replace(/\|\d{8}\|/, '|19801340|') : s));
    const [order] = await entries(rde);
    const found = codes(order!.problems);
    expect(found).toContain('hl7.noItems');
    expect(order!.problems.some((p) => p.field === 'customer.dateOfBirth')).toBe(true);
    expect(order!.clinicOrderId).toBe('RX-EMPTY');
  });

  it('refuses an OML^O21 as a laboratory order, by its type', async () => {
    const [order] = await entries([
      'MSH|^~\\&|OP|Entero-gastric|OF|Chemistry|200309060820||OML^O21^OML_O21|msgOP123|P|2.5.1',
      PID,
      'ORC|NW|12345678^gastric',
      'OBR||12345678^gastric||82951^Glucose Tolerance Test^C4',
    ]);
    expect(order!.problems).toMatchObject([{ code: 'hl7.messageType', severity: 'error' }]);
    expect(order!.problems[0]!.text).toContain('a laboratory order, not a pharmacy order');
  });
});
