import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { importHl7Message } from './import-message.js';
import { writeRde011 } from './rde-writer.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * A field repeated tens of thousands of times, in a segment under the 1 MB limit: each repetition used to be found
 * by counting separators from the field's start (and a dosage's end re-read as it grew), so reading them all took
 * minutes and the import looked hung. The message is still read, in well under a second.
 */

const PROFILE: MappingProfile = {
  name: 'HL7 clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};

const BASE = writeRde011(exampleOrder('R-1'), { timestamp: '20250101120000' }).split('\r');

async function importSegments(segments: readonly string[]) {
  const { orders } = await importHl7Message(Buffer.from(segments.join('\r')), 'many.hl7', {
    codeLists: DEFAULT_CODE_LISTS,
    profile: PROFILE,
    today: new Date('2025-06-01T00:00:00Z'),
  });
  expect(orders).toHaveLength(1);
  return orders[0]!.order;
}

const REPEATS = 100_000;

describe('a field with very many repetitions', () => {
  it('PID-5 repeated 100,000 times: the first name is read, quickly', async () => {
    const segments = BASE.map((s) =>
      s.startsWith('PID|') ? s.replace('Example^Alex^^^Ms', `Example^Alex^^^Ms${'~A^B'.repeat(REPEATS)}`) : s,
    );
    const started = Date.now();
    const order = await importSegments(segments);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(order.body).toMatchObject({ customer: { surname: 'Example', firstName: 'Alex', title: 'Ms' } });
    // The warning names a few of the differing repetitions, not all 100,001.
    const tie = order.problems.find((problem) => problem.code === 'hl7.repeatChoice');
    expect(tie?.text).toBe(
      'PID-5 has 100001 names of the kind chosen that differ (repetitions 1, 2, 3, 4, 5 and 99996 more); repetition 1 was used.',
    );
  }, 30_000);

  it('a few differing repetitions are all named', async () => {
    const segments = BASE.map((s) =>
      s.startsWith('PID|') ? s.replace('Example^Alex^^^Ms', 'Example^Alex^^^Ms~A^B~C^D') : s,
    );
    const order = await importSegments(segments);
    expect(order.problems.find((problem) => problem.code === 'hl7.repeatChoice')?.text).toBe(
      'PID-5 has 3 names of the kind chosen that differ (repetitions 1, 2 and 3); repetition 1 was used.',
    );
  });

  it('RXE-7 repeated 100,000 times: the dosage is joined and refused as too long, quickly', async () => {
    const segments = BASE.map((s) =>
      s.startsWith('RXE|')
        ? s.replace('^Two tablets up to four times a day', `^Two tablets${'~^x'.repeat(REPEATS)}`)
        : s,
    );
    const started = Date.now();
    const order = await importSegments(segments);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(order.problems).toContainEqual(
      expect.objectContaining({ code: 'field.tooLong', field: 'prescribedItems.0.dosageInstructions' }),
    );
  }, 30_000);

  it('a repetition in a field without subcomponents is still read whole', async () => {
    const segments = BASE.map((s) =>
      s.startsWith('PID|') ? s.replace('Example^Alex^^^Ms', `~Example^Alex^^^Ms${'~'.repeat(REPEATS)}`) : s,
    );
    const order = await importSegments(segments);
    expect(order.body).toMatchObject({ customer: { surname: 'Example', firstName: 'Alex', title: 'Ms' } });
  }, 30_000);
});

describe('a message of thousands of ORC or PID segments', () => {
  it('hl7.multipleOrders names the first ten order numbers and how many more', async () => {
    const [msh, pid, orc, rxe] = BASE;
    const orders = Array.from({ length: 3000 }, (_, i) => [orc!.replace('ORC|NW|R-1|', `ORC|NW|R-${i + 1}|`), rxe!]);
    const order = await importSegments([msh!, pid!, ...orders.flat()]);
    const text = order.problems.find((problem) => problem.code === 'hl7.multipleOrders')?.text;
    expect(text).toContain('(ORC-2 R-1, R-2, R-3, R-4, R-5, R-6, R-7, R-8, R-9, R-10 and 2990 more)');
    expect(text!.length).toBeLessThan(400);
  });

  it('hl7.multiplePatients names the first ten PID segments and how many more', async () => {
    const [msh, pid, ...rest] = BASE;
    const pids = Array.from({ length: 3000 }, (_, i) => pid!.replace('Example^Alex', `Other${i}^Alex`));
    const { orders } = await importHl7Message(Buffer.from([msh, pid, ...pids, ...rest].join('\r')), 'many.hl7', {
      codeLists: DEFAULT_CODE_LISTS,
      profile: PROFILE,
    });
    const text = orders[0]!.order.problems.find((problem) => problem.code === 'hl7.multiplePatients')?.text;
    expect(text).toContain('PID segment 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 and 2990 more differs from the first PID');
    expect(text!.length).toBeLessThan(500);
  });
});
