import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { importHl7Message } from './import-message.js';
import { writeRde011 } from './rde-writer.js';
import { exampleOrder } from './testing/write-fixtures.js';

// Senders often say how often an item is taken in its quantity/timing (ORC-7 or RXE-1 up to v2.4, TQ1 from v2.5:
// a public load generator's OMP^O09 has `ORC|OP|1000|…||||^3 times daily^^20210401` and an empty RXO-7) and leave the
// administration instructions empty. The order then said only "dosage instructions are required: RXE-7 is empty",
// and the admin did not learn that the message held the frequency.

const PROFILE: MappingProfile = {
  name: 'HL7 clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};

/** The example RDE^O11 with RXE-7 (dosage) emptied and `change` applied to its segments. */
function withoutDosage(change: (segments: string[]) => string[] = (s) => s): string {
  const segments = writeRde011(exampleOrder('T-1'), { timestamp: '20250101120000' })
    .split('\r')
    .map((segment) => {
      if (!segment.startsWith('RXE|')) return segment;
      const fields = segment.split('|');
      fields[7] = '';
      return fields.join('|');
    });
  return change(segments).join('\r');
}

const setField = (segments: string[], name: string, field: number, value: string) =>
  segments.map((segment) => {
    if (!segment.startsWith(`${name}|`)) return segment;
    const fields = segment.split('|');
    while (fields.length <= field) fields.push('');
    fields[field] = value;
    return fields.join('|');
  });

async function dosageProblems(text: string) {
  const { orders } = await importHl7Message(Buffer.from(text), 'timing.hl7', {
    codeLists: DEFAULT_CODE_LISTS,
    profile: PROFILE,
    today: new Date('2025-06-01T00:00:00Z'),
  });
  const order = orders[0]!.order;
  return order.problems.filter((problem) => problem.field === 'prescribedItems.0.dosageInstructions');
}

describe('an item with no dosage instructions whose timing is in words', () => {
  it.each([
    [
      'ORC-7.2, the interval (v2.3, v2.4)',
      (s: string[]) => setField(s, 'ORC', 7, '^3 times daily^^20210401'),
      'ORC-7.2',
      '3 times daily',
    ],
    [
      'ORC-7.8, the timing’s text',
      (s: string[]) => setField(s, 'ORC', 7, '1^^^^^^^Take one each morning'),
      'ORC-7.8',
      'Take one each morning',
    ],
    ['RXE-1, the item’s own timing', (s: string[]) => setField(s, 'RXE', 1, '^BID'), 'RXE-1.2', 'BID'],
    [
      'TQ1-11, the text instruction (v2.5 on)',
      (s: string[]) =>
        s.flatMap((segment) => (segment.startsWith('ORC|') ? [segment, 'TQ1|1||||||||||One at night'] : [segment])),
      'TQ1-11',
      'One at night',
    ],
  ])('names it from %s, and does not send it as the dosage', async (_, change, path, text) => {
    const problems = await dosageProblems(withoutDosage(change));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ severity: 'error', code: 'hl7.dosageInTiming' });
    expect(problems[0]!.text).toContain(`but its timing (${path}) reads '${text}'`);
    expect(problems[0]!.text).toContain('Ask the sender to fill RXE-7');
  });

  it('says nothing of a timing of numbers and dates alone: the dosage is simply missing', async () => {
    const problems = await dosageProblems(withoutDosage((s) => setField(s, 'ORC', 7, '1^^^20210401')));
    expect(problems.map((problem) => problem.code)).toEqual(['field.required']);
  });
});
