import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile, type MappingProfile } from './index.js';
import { writeRde011 } from './rde-writer.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * A prescription of several items sent as one RDE^O11 with an ORC and RXE per item, as HL7 v2 orders them: each
 * item a placer order number of its own (ORC-2), the prescription their placer group number (ORC-4). That is one
 * order of several items; ORC-2s with no common ORC-4 are orders the sender should send apart.
 */

const PROFILE: MappingProfile = {
  name: 'HL7 clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};
const SEGMENTS = writeRde011(exampleOrder('W-1'), { timestamp: '20250101120000' })
  .split('\r')
  .filter((s) => s !== '');
const ORC = SEGMENTS.find((s) => s.startsWith('ORC|'))!;
const RXE = SEGMENTS.find((s) => s.startsWith('RXE|'))!;
const IBUPROFEN = RXE.replace(
  '42109611000001109^Paracetamol 500mg tablets',
  '39695211000001102^Ibuprofen 200mg tablets',
);

/** The ORC with ORC-2 and ORC-4 set. */
function orc(placer: string, group: string): string {
  const fields = ORC.split('|');
  fields[2] = placer;
  fields[4] = group;
  return fields.join('|');
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-placer-group-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function importGroups(groups: Array<[placer: string, group: string]>) {
  const head = SEGMENTS.filter((s) => !s.startsWith('ORC|') && !s.startsWith('RXE|'));
  const lines = [...head, ...groups.flatMap(([placer, group], i) => [orc(placer, group), i === 0 ? RXE : IBUPROFEN])];
  const path = join(dir, 'grouped.hl7');
  await writeFile(path, lines.join('\r') + '\r');
  return importFile(path, { codeLists: DEFAULT_CODE_LISTS, profile: PROFILE, today: new Date('2025-06-01T00:00:00Z') });
}

const codes = (problems: Array<{ code: string }>) => problems.map((p) => p.code);

describe('an order whose items each have their own ORC', () => {
  it('is one order numbered by the placer group (ORC-4) when every ORC has the same one', async () => {
    const report = await importGroups([
      ['RX-77-1', 'RX-77'],
      ['RX-77-2', 'RX-77'],
    ]);
    expect(report.orders).toHaveLength(1);
    const order = report.orders[0]!;
    expect(codes(order.problems)).not.toContain('hl7.multipleOrders');
    expect(order.valid).toBe(true);
    const body = order.body as { prescription: { clinicOrderId: string }; prescribedItems: Array<{ dmdCode: string }> };
    expect(body.prescription.clinicOrderId).toBe('RX-77');
    expect(body.prescribedItems.map((item) => String(item.dmdCode))).toEqual([
      '42109611000001109',
      '39695211000001102',
    ]);
    expect(order.provenance['prescription.clinicOrderId']).toMatchObject({ kind: 'hl7', path: 'ORC-4.1' });
  });

  it('keeps ORC-2 when every ORC has the same one, ORC-4 or not', async () => {
    const report = await importGroups([
      ['RX-80', 'GROUP-1'],
      ['RX-80', 'GROUP-1'],
    ]);
    const body = report.orders[0]!.body as { prescription: { clinicOrderId: string } };
    expect(body.prescription.clinicOrderId).toBe('RX-80');
    expect(report.orders[0]!.valid).toBe(true);
  });

  it.each([
    ['no ORC-4', ['', '']],
    ['different ORC-4s', ['G-1', 'G-2']],
    ['ORC-4 on one ORC only', ['G-1', '']],
  ])('is refused as several orders with %s, saying how to send them', async (_, [first, second]) => {
    const report = await importGroups([
      ['RX-90', first!],
      ['RX-91', second!],
    ]);
    const problem = report.orders[0]!.problems.find((p) => p.code === 'hl7.multipleOrders');
    expect(problem?.severity).toBe('error');
    expect(problem?.text).toContain('RX-90, RX-91');
    expect(problem?.text).toContain('ORC-4');
  });
});
