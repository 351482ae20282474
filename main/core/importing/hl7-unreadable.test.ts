import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile, writeRde011, type ImportedOrder, type MappingProfile } from './index.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * U+FFFD (what a decoder could not read) in an HL7 order is found wherever it can come from: the message's text, a
 * `\X..\` escape that decodes to it, a profile's constant. The HL7 import skips the search of a body where none of
 * those can hold one, so each source is checked here; the other messages of the file stay valid.
 */

const TODAY = new Date('2025-06-01T00:00:00Z');
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-hl7-unreadable-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What an RDE^O11 from writeRde011 does not carry, so its orders are valid. */
const CONSTANTS = { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' };
const profileWith = (constants: Record<string, string>): MappingProfile => ({
  name: 'constants',
  columns: {},
  constants: { ...CONSTANTS, ...constants },
  valueMaps: {},
});

/** Three messages; the second one's PID-5 surname replaced by `surname` as written in the file. */
async function importWithSurname(surname: string, profile = profileWith({})): Promise<ImportedOrder[]> {
  const messages = ['U-1', 'U-2', 'U-3'].map((id, i) => {
    const text = writeRde011(exampleOrder(id), { timestamp: '20250101120000', controlId: `C${i}` });
    return i === 1 ? text.replace(/^PID\|([^|]*\|){4}[^^|]*/m, (pid) => pid.replace(/[^^|]*$/, surname)) : text;
  });
  const path = join(dir, `${Math.random().toString(36).slice(2)}.hl7`);
  await writeFile(path, messages.join('\r'), 'utf8');
  const report = await importFile(path, {
    codeLists: DEFAULT_CODE_LISTS,
    today: TODAY,
    profile,
  });
  expect(report.orders).toHaveLength(3);
  return report.orders;
}

const unreadable = (order: ImportedOrder) =>
  order.problems.filter((p) => p.code === 'text.unreadable').map((p) => p.field);

describe('unreadable text in HL7 orders', () => {
  it('is reported where the message holds U+FFFD itself', async () => {
    const orders = await importWithSurname('Zo\ufffd');
    expect((orders[1]!.body as { customer: { surname: string } }).customer.surname).toBe('Zo\ufffd');
    expect(orders.map(unreadable)).toEqual([[], ['customer.surname'], []]);
    expect(orders.map((order) => order.valid)).toEqual([true, false, true]);
  });

  it('is reported where a \\X..\\ escape decodes to U+FFFD', async () => {
    const orders = await importWithSurname('Zo\\XEFBFBD\\');
    expect((orders[1]!.body as { customer: { surname: string } }).customer.surname).toBe('Zo\ufffd');
    expect(orders.map(unreadable)).toEqual([[], ['customer.surname'], []]);
  });

  it("is reported where the profile's constant holds U+FFFD, in every order", async () => {
    const orders = await importWithSurname('Example', profileWith({ courierCode: 'RMT\ufffd24' }));
    expect(orders.map(unreadable)).toEqual([
      ['prescription.courierCode'],
      ['prescription.courierCode'],
      ['prescription.courierCode'],
    ]);
  });

  it('is not reported where nothing holds it', async () => {
    const orders = await importWithSurname('Zoë');
    expect(orders.map(unreadable)).toEqual([[], [], []]);
    expect(orders.map((order) => order.valid)).toEqual([true, true, true]);
  });
});
